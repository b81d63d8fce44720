"""Conv3D and Conv3DTranspose layers (paddle.nn), with Paddle 3.3's Conv3d alias."""
import math

from ...framework import arguments
from .. import functional as F
from ..functional.conv3d import check_input3d, triple
from ..initializer import Normal
from .conv import _check_channels, _pad_list
from .layers import Layer

__all__ = ["Conv3D", "Conv3DTranspose", "Conv3d"]


class _Conv3DBase(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, transposed, stride, padding,
                 output_padding, dilation, groups, padding_mode, weight_attr, bias_attr,
                 data_format, dtype=None):
        super().__init__()
        where = type(self).__name__
        in_channels, out_channels, groups = _check_channels(where, in_channels, out_channels,
                                                            groups, padding_mode)
        if padding_mode != "zeros" and isinstance(padding, str):
            raise ValueError(f"{where}: padding_mode {padding_mode!r} needs numeric padding")
        arguments.choice(where, "data_format", data_format, ("NCDHW", "NDHWC"))
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = triple(kernel_size, "kernel_size", where)
        self._stride = triple(stride, "stride", where)
        self._dilation = triple(dilation, "dilation", where)
        self._padding, self._output_padding = padding, output_padding
        self._groups, self._padding_mode, self._data_format = groups, padding_mode, data_format
        k = self._kernel_size
        if transposed:
            shape = [self._in_channels, self._out_channels // groups] + k
            default = None  # XavierUniform, as Paddle
        else:
            shape = [self._out_channels, self._in_channels // groups] + k
            fan = k[0] * k[1] * k[2] * self._in_channels or 1  # 0: a weight of no entries
            default = Normal(0.0, math.sqrt(2.0 / fan))
        self.weight = self.create_parameter(shape, weight_attr, dtype=dtype,
                                            default_initializer=default)
        self.bias = self.create_parameter([self._out_channels], bias_attr, dtype=dtype,
                                          is_bias=True)

    def extra_repr(self):
        s = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1, 1, 1]:
            s += f", stride={self._stride}"
        if self._padding != 0:
            s += f", padding={self._padding}"
        if self._output_padding != 0:
            s += f", output_padding={self._output_padding}"
        if self._dilation != [1, 1, 1]:
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + f", data_format={self._data_format}"


class Conv3D(_Conv3DBase):
    """3-D convolution: weight [out_channels, in_channels / groups, kd, kh, kw] (Normal(0,
    sqrt(2 / (kd * kh * kw * in_channels))) by default), bias [out_channels] (zeros; none
    when ``bias`` is False or ``bias_attr`` is False)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, *, bias=True, padding_mode="zeros", device=None, dtype=None,
                 weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, stride, padding, 0,
                         dilation, groups, padding_mode, weight_attr,
                         bias_attr if bias else False, data_format, dtype)

    def forward(self, x):
        check_input3d(x, "Conv3D", self._data_format, self._in_channels)
        padding = self._padding
        if self._padding_mode != "zeros":
            x = F.pad(x, _pad_list(padding, 3), self._padding_mode, data_format=self._data_format)
            padding = 0
        return F.conv3d(x, self.weight, self.bias, self._stride, padding, self._dilation,
                        self._groups, self._data_format)


class Conv3DTranspose(_Conv3DBase):
    """3-D transposed convolution: weight [in_channels, out_channels / groups, kd, kh, kw];
    ``forward(x, output_size=None)``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, stride, padding,
                         output_padding, dilation, groups, "zeros", weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        check_input3d(x, "Conv3DTranspose", self._data_format, self._in_channels)
        return F.conv3d_transpose(x, self.weight, self.bias, self._stride, self._padding,
                                  self._output_padding, self._groups, self._dilation,
                                  output_size, self._data_format)


Conv3d = Conv3D
