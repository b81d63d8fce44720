"""Padding layers (paddle.nn.Pad1D, Pad2D, Pad3D, ZeroPad2D)."""
from .. import functional as F
from .layers import Layer

__all__ = ["Pad1D", "Pad2D", "Pad3D", "ZeroPad2D"]


class _PadBase(Layer):
    _dims = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__()
        if isinstance(padding, int):
            padding = [padding] * (2 * self._dims)
        self._pad, self._mode, self._value = list(padding), mode, value
        self._data_format = data_format

    def forward(self, x):
        return F.pad(x, self._pad, self._mode, self._value, self._data_format)

    def extra_repr(self):
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, "
                f"data_format={self._data_format}")


class Pad1D(_PadBase):
    """Pads the length of [N, C, L] inputs by [left, right]."""
    _dims = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadBase):
    """Pads [N, C, H, W] inputs by [left, right, top, bottom]."""
    _dims = 2


class Pad3D(_PadBase):
    """Pads [N, C, D, H, W] inputs by [left, right, top, bottom, front, back]."""
    _dims = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format)


class ZeroPad2D(_PadBase):
    """Zero padding of [N, C, H, W] inputs by [left, right, top, bottom]."""
    _dims = 2

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format)
