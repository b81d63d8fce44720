"""A corpus of to_static idioms run under skiff and under Paddle (see corpus.py)."""
