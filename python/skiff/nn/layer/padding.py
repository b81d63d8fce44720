"""Padding layers (paddle.nn.Pad1D/2D/3D and the fixed-mode ZeroPad*, ConstantPad*,
ReflectionPad*, ReplicationPad*, CircularPad* with their lower-case-d aliases), each
calling F.pad."""
from ...framework import arguments
from .. import functional as F
from ..functional.padding import FORMATS
from .layers import Layer

_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


class _PadBase(Layer):
    _dims = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        where = type(self).__name__
        if isinstance(padding, int):
            padding = [padding] * (2 * self._dims)
        self._pad = arguments.integers(where, "padding", padding)
        self._mode = arguments.choice(where, "mode", mode,
                                      ("constant", "reflect", "replicate", "circular"))
        self._value = arguments.number(where, "value", value)
        self._data_format = arguments.choice(where, "data_format",
                                             data_format or _FORMATS[self._dims], FORMATS)
        self._name = name

    def forward(self, x):
        return F.pad(x, self._pad, self._mode, self._value, self._data_format)

    def extra_repr(self):
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, "
                f"data_format={self._data_format}")


class Pad1D(_PadBase):
    """Pads the length of [N, C, L] inputs by [left, right]."""
    _dims = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadBase):
    """Pads [N, C, H, W] inputs by [left, right, top, bottom]."""
    _dims = 2


class Pad3D(_PadBase):
    """Pads [N, C, D, H, W] inputs by [left, right, top, bottom, front, back]."""
    _dims = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


def _fixed_mode(cls_name, dims, mode, doc):
    """A padding layer of ``dims`` spatial dims whose mode is fixed: (padding,
    data_format=..., name=None)."""

    def __init__(self, padding, data_format=_FORMATS[dims], name=None):
        _PadBase.__init__(self, padding, mode, 0.0, data_format, name)

    return type(cls_name, (_PadBase,), {"_dims": dims, "__init__": __init__, "__doc__": doc})


def _constant(cls_name, dims):
    def __init__(self, padding, value, data_format=_FORMATS[dims], name=None):
        _PadBase.__init__(self, padding, "constant", value, data_format, name)

    doc = f"Pads the {dims} spatial dim(s) with the constant ``value``."
    return type(cls_name, (_PadBase,), {"_dims": dims, "__init__": __init__, "__doc__": doc})


_MODE_DOCS = {"Zero": ("constant", "with zeros"),
              "Reflection": ("reflect", "by mirroring the input (the edge not repeated)"),
              "Replication": ("replicate", "by repeating the edge values"),
              "Circular": ("circular", "by wrapping around (the other end's values)")}

__all__ = ["Pad1D", "Pad2D", "Pad3D"]
for _dims in (1, 2, 3):
    for _kind, (_mode, _how) in _MODE_DOCS.items():
        _name = f"{_kind}Pad{_dims}D"
        globals()[_name] = _fixed_mode(_name, _dims, _mode,
                                       f"Pads the {_dims} spatial dim(s) {_how}.")
    globals()[f"ConstantPad{_dims}D"] = _constant(f"ConstantPad{_dims}D", _dims)
    for _kind in list(_MODE_DOCS) + ["Constant"]:
        _name = f"{_kind}Pad{_dims}D"
        globals()[_name[:-1] + "d"] = globals()[_name]  # Paddle's lower-case-d aliases
        __all__ += [_name, _name[:-1] + "d"]
