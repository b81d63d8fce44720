"""Conv2D and Conv2DTranspose layers (paddle.nn)."""
import math

from ... import _C
from ...framework import arguments
from .. import functional as F
from ..functional.conv import pair
from ..initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose"]


def _check_channels(where, in_channels, out_channels, groups, padding_mode):
    """(in_channels, out_channels, groups) of the conv layer ``where`` as ints: counts, the
    channels divisible by groups; padding_mode one of Paddle's four."""
    in_channels = arguments.count(where, "in_channels", in_channels)
    out_channels = arguments.count(where, "out_channels", out_channels)
    groups = arguments.count(where, "groups", groups, low=1)
    if in_channels % groups or out_channels % groups:
        raise arguments.ArgumentError(f"{where}: in_channels ({in_channels}) and out_channels "
                                      f"({out_channels}) must be divisible by groups "
                                      f"({groups})")
    arguments.choice(where, "padding_mode", padding_mode,
                     ("zeros", "reflect", "replicate", "circular"))
    return in_channels, out_channels, groups


class _Conv2DBase(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, transposed, stride, padding,
                 output_padding, dilation, groups, padding_mode, weight_attr, bias_attr,
                 data_format):
        super().__init__()
        where = type(self).__name__
        in_channels, out_channels, groups = _check_channels(where, in_channels, out_channels,
                                                            groups, padding_mode)
        if padding_mode != "zeros" and isinstance(padding, str):
            raise ValueError(f"{where}: padding_mode {padding_mode!r} needs numeric padding")
        arguments.choice(where, "data_format", data_format, ("NCHW", "NHWC"))
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = pair(kernel_size, "kernel_size", where)
        self._stride = pair(stride, "stride", where)
        self._dilation = pair(dilation, "dilation", where)
        self._padding, self._output_padding = padding, output_padding
        self._groups, self._padding_mode, self._data_format = groups, padding_mode, data_format
        if transposed:
            shape = [self._in_channels, self._out_channels // groups] + self._kernel_size
            default = None  # XavierUniform, as Paddle
        else:
            shape = [self._out_channels, self._in_channels // groups] + self._kernel_size
            # (0: a weight of no entries, whose init does not matter)
            fan = self._kernel_size[0] * self._kernel_size[1] * self._in_channels or 1
            default = Normal(0.0, math.sqrt(2.0 / fan))
        self.weight = self.create_parameter(shape, weight_attr, default_initializer=default)
        self.bias = self.create_parameter([self._out_channels], bias_attr, is_bias=True)

    def extra_repr(self):
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1, 1]:
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._output_padding != 0:
            s += f", output_padding={self._output_padding}"
        if self._dilation != [1, 1]:
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv2D(_Conv2DBase):
    """2-D convolution: weight [out_channels, in_channels / groups, kh, kw] (Normal(0,
    sqrt(2 / (kh * kw * in_channels))) by default), bias [out_channels] (zeros)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, stride, padding, 0,
                         dilation, groups, padding_mode, weight_attr, bias_attr, data_format)

    def forward(self, x):
        _check(x, "Conv2D", self._in_channels, self._data_format)
        padding = self._padding
        if self._padding_mode != "zeros":
            x = F.pad(x, _pad_list(padding, 2), self._padding_mode, data_format=self._data_format)
            padding = 0
        return F.conv2d(x, self.weight, self.bias, self._stride, padding, self._dilation,
                        self._groups, self._data_format)


class Conv2DTranspose(_Conv2DBase):
    """2-D transposed convolution: weight [in_channels, out_channels / groups, kh, kw];
    ``forward(x, output_size=None)``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, stride, padding,
                         output_padding, dilation, groups, "zeros", weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        _check(x, "Conv2DTranspose", self._in_channels, self._data_format)
        return F.conv2d_transpose(x, self.weight, self.bias, self._stride, self._padding,
                                  self._output_padding, self._groups, self._dilation,
                                  self._data_format, output_size)


class _Conv1DBase(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, transposed, stride, padding,
                 output_padding, dilation, groups, padding_mode, weight_attr, bias_attr,
                 data_format):
        super().__init__()
        where = type(self).__name__
        in_channels, out_channels, groups = _check_channels(where, in_channels, out_channels,
                                                            groups, padding_mode)
        self._padding_mode = padding_mode
        self._in_channels, self._out_channels = in_channels, out_channels
        k = arguments.sizes(where, "kernel_size", kernel_size, 1)[0]
        self._kernel_size, self._stride, self._padding = [k], stride, padding
        self._output_padding, self._dilation, self._groups = output_padding, dilation, groups
        self._data_format = data_format
        if transposed:
            shape, default = [self._in_channels, self._out_channels // groups, k], None
        else:
            shape = [self._out_channels, self._in_channels // groups, k]
            default = Normal(0.0, math.sqrt(2.0 / (k * self._in_channels or 1)))
        self.weight = self.create_parameter(shape, weight_attr, default_initializer=default)
        self.bias = self.create_parameter([self._out_channels], bias_attr, is_bias=True)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, "
                f"data_format={self._data_format}")


class Conv1D(_Conv1DBase):
    """1-D convolution of [N, C, L] inputs: weight [out_channels, in_channels / groups, k]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, stride, padding, 0,
                         dilation, groups, padding_mode, weight_attr, bias_attr, data_format)

    def forward(self, x):
        padding = self._padding
        if self._padding_mode != "zeros":
            x = F.pad(x, _pad_list(padding, 1), self._padding_mode, data_format=self._data_format)
            padding = 0
        return F.conv1d(x, self.weight, self.bias, self._stride, padding, self._dilation,
                        self._groups, self._data_format)


class Conv1DTranspose(_Conv1DBase):
    """1-D transposed convolution: weight [in_channels, out_channels / groups, k]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, True, stride, padding,
                         output_padding, dilation, groups, "zeros", weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(x, self.weight, self.bias, self._stride, self._padding,
                                  self._output_padding, self._groups, self._dilation,
                                  output_size, self._data_format)


def _pad_list(padding, dims):
    """A conv's numeric padding as F.pad's [left, right, top, bottom] list."""
    if isinstance(padding, int):
        return [padding] * (2 * dims)
    padding = arguments.integers("pad", "padding", padding)
    if len(padding) == dims:  # one per spatial dim (H, W): both sides
        return [p for p in reversed(padding) for _ in range(2)]
    if len(padding) == 2 * dims:  # [top, bottom, left, right]
        pairs = [padding[i:i + 2] for i in range(0, len(padding), 2)]
        return [p for pair in reversed(pairs) for p in pair]
    raise ValueError(f"padding {padding} cannot be used with a padding_mode")


def _check(x, where, channels, data_format):
    shape = list(x.shape)
    if len(shape) != 4:
        raise _C.Error(f"{where}: expected a 4-D input [N, C, H, W] ({data_format}), got shape "
                       f"{shape}")
    c = shape[1] if data_format == "NCHW" else shape[3]
    if c >= 0 and c != channels:
        raise _C.Error(f"{where}: the input has {c} channels but the layer was built for "
                       f"in_channels = {channels} (input shape {shape}, {data_format})")
