"""Layers that rearrange elements (paddle.nn.Unflatten, PixelUnshuffle, ChannelShuffle)."""
from ... import _C_ops
from .. import functional as F
from .layers import Layer

__all__ = ["Unflatten", "PixelUnshuffle", "ChannelShuffle"]


class Unflatten(Layer):
    """Splits dim ``axis`` of the input into ``shape`` (one entry may be -1)."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        if hasattr(shape, "numpy"):
            shape = shape.numpy().reshape(-1).tolist()
        if not isinstance(shape, (list, tuple)) or not shape:
            raise TypeError(f"Unflatten: shape must be a non-empty list or tuple, got {shape!r}")
        self.axis, self.shape, self.name = int(axis), [int(s) for s in shape], name

    def forward(self, input):
        dims = [int(s) for s in input.shape]
        rank = len(dims)
        if not -rank <= self.axis < rank:
            raise ValueError(f"Unflatten: axis {self.axis} is out of range for a rank-{rank} "
                             f"input")
        axis = self.axis % rank
        known = [s for s in self.shape if s != -1]
        size = 1
        for s in known:
            size *= s
        if dims[axis] >= 0 and (len(known) < len(self.shape) - 1 or (
                len(known) == len(self.shape) and size != dims[axis]) or dims[axis] % size):
            raise ValueError(f"Unflatten: shape {self.shape} does not split dim {axis} of "
                             f"size {dims[axis]}")
        new = [0 if s < 0 else s for s in dims]
        new[axis:axis + 1] = self.shape
        if -1 in self.shape and dims[axis] >= 0:
            new[axis + self.shape.index(-1)] = dims[axis] // size
        return _C_ops.reshape(input, shape=[int(d) for d in new])

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}"


class PixelUnshuffle(Layer):
    """[N, C, H, W] -> [N, C * r * r, H / r, W / r] with r = downscale_factor."""

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._downscale_factor, self._data_format = downscale_factor, data_format

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self):
        return f"downscale_factor={self._downscale_factor}, data_format={self._data_format}"


class ChannelShuffle(Layer):
    """Interleaves ``groups`` groups of channels (see F.channel_shuffle)."""

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        return f"groups={self._groups}, data_format={self._data_format}"
