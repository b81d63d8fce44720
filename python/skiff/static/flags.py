"""Global switches (Paddle's set_flags / get_flags). ``check_nan_inf``: the executor
stops at the first op whose output holds NaN or Inf, naming the op, the output and
the line that created the op."""
from .. import _C
from ..framework.arguments import ArgumentTypeError, flag

__all__ = ["set_flags", "get_flags"]

_FLAGS = {"check_nan_inf": (_C.check_nan_inf, _C.set_check_nan_inf)}


def _key(fn, name):
    """The flag ``name`` (with or without its FLAGS_ prefix) names, for ``fn``."""
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{fn}: a flag name must be a str, got {type(name).__name__}")
    key = name[len("FLAGS_"):] if name.startswith("FLAGS_") else name
    if key not in _FLAGS:
        raise ValueError(f"unknown flag '{name}' (skiff has: "
                         f"{', '.join('FLAGS_' + k for k in _FLAGS)})")
    return key


def set_flags(flags):
    """Sets flags from a dict {'FLAGS_check_nan_inf': True} (the prefix is optional)."""
    if not isinstance(flags, dict):
        raise ArgumentTypeError(f"set_flags: flags must be a dict of flag names and values, "
                                f"got {type(flags).__name__}")
    for name, value in flags.items():
        _FLAGS[_key("set_flags", name)][1](flag("set_flags", str(name), value))


def get_flags(flags):
    """The values of the named flags (a name or a list of names), keyed as given."""
    if not isinstance(flags, (str, list, tuple)):
        raise ArgumentTypeError(f"get_flags: flags must be a flag name or a list of them, got "
                                f"{type(flags).__name__}")
    names = [flags] if isinstance(flags, str) else list(flags)
    return {name: _FLAGS[_key("get_flags", name)][0]() for name in names}
