"""Unique names ``key_0``, ``key_1``, ... (Paddle's paddle.utils.unique_name), sharing the
counters that name skiff's layers and parameters."""
import collections

from ..framework.param import unique_name as _names

__all__ = ["generate", "guard", "switch"]


class UniqueNameGenerator:
    """One set of per-key counters, with an optional prefix for the names of generate()."""

    def __init__(self, prefix=None):
        self.counts = collections.defaultdict(int)
        self.prefix = prefix or ""


_prefix = ""


def generate(key):
    """The next unique name for ``key``: ``key_0``, then ``key_1``, ..."""
    return _prefix + _names.generate(key)


def switch(new_generator=None):
    """Makes ``new_generator`` (a fresh one when None) current; returns the previous one."""
    global _prefix
    if new_generator is None:
        new_generator = UniqueNameGenerator()
    elif not isinstance(new_generator, UniqueNameGenerator):
        raise TypeError(f"unique_name.switch: new_generator must be a UniqueNameGenerator, "
                        f"got {type(new_generator).__name__}")
    old = UniqueNameGenerator(_prefix)
    old.counts = _names.counts
    _names.counts = new_generator.counts
    _prefix = new_generator.prefix
    return old


class guard:
    """Within it names count from zero again (``new_generator`` may be a prefix string for
    the names of generate(), or a generator); the previous counters return afterwards."""

    def __init__(self, new_generator=None):
        if isinstance(new_generator, bytes):
            new_generator = new_generator.decode()
        if isinstance(new_generator, str):
            new_generator = UniqueNameGenerator(new_generator)
        self.new_generator = new_generator

    def __enter__(self):
        self.old = switch(self.new_generator)

    def __exit__(self, *exc):
        switch(self.old)
        return False
