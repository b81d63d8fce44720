"""Eager (the default) or static mode. In static mode the functions of skiff append
ops to the current program instead of running them."""


class _Mode:
    static = False
    # Set by skiff.static: appends an op to the current block and returns its
    # output variables, shaped like an eager call's result.
    static_apply = None


mode = _Mode()


def in_dynamic_mode():
    """True in eager mode (the default)."""
    return not mode.static


def enable_static():
    """Switches to static mode: ops build programs (skiff.static)."""
    from .. import static  # noqa: F401  (installs the static hook)
    mode.static = True


def disable_static():
    """Switches back to eager mode."""
    mode.static = False
