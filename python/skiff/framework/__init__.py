"""Framework internals: dtypes, the eager/static mode switch and op dispatch."""
