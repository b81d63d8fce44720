"""Global switches (Paddle's set_flags / get_flags). ``check_nan_inf``: the executor
stops at the first op whose output holds NaN or Inf, naming the op, the output and
the line that created the op."""
from .. import _C

__all__ = ["set_flags", "get_flags"]

_FLAGS = {"check_nan_inf": (_C.check_nan_inf, _C.set_check_nan_inf)}


def _key(name):
    key = name[len("FLAGS_"):] if name.startswith("FLAGS_") else name
    if key not in _FLAGS:
        raise ValueError(f"unknown flag '{name}' (skiff has: "
                         f"{', '.join('FLAGS_' + k for k in _FLAGS)})")
    return key


def set_flags(flags):
    """Sets flags from a dict {'FLAGS_check_nan_inf': True} (the prefix is optional)."""
    if not isinstance(flags, dict):
        raise TypeError("set_flags wants a dict of flag names and values")
    for name, value in flags.items():
        _FLAGS[_key(name)][1](bool(value))


def get_flags(flags):
    """The values of the named flags (a name or a list of names), keyed as given."""
    names = [flags] if isinstance(flags, str) else list(flags)
    return {name: _FLAGS[_key(name)][0]() for name in names}
