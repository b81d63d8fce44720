"""Sparse convolution and pooling layers: Conv2D/Conv3D, SubmConv2D/SubmConv3D (weight
[*kernel, in_channels, out_channels], channel-last inputs) and MaxPool3D."""
import math

import numpy as np

from ...framework.arguments import ArgumentError
from ...nn import Layer
from ...nn.initializer import Normal
from . import functional as F
from .functional import rulebook

__all__ = ["Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D"]


class _Conv(Layer):
    _nd = 3
    _subm = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", key=None, weight_attr=None,
                 bias_attr=None, data_format=None, backend=None):
        super().__init__()
        where = type(self).__name__
        layout = "NHWC" if self._nd == 2 else "NDHWC"
        data_format = layout if data_format is None else data_format
        if data_format != layout:
            raise ArgumentError(f"{where}: data_format must be '{layout}', got {data_format!r}")
        if groups != 1:
            raise ArgumentError(f"{where}: groups must be 1, got {groups}")
        if padding_mode != "zeros":
            raise ArgumentError(f"{where}: padding_mode must be 'zeros', got {padding_mode!r}")
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or v < 1:
                raise ArgumentError(f"{where}: {name} must be a positive int, got {v!r}")
        self._kernel_size = rulebook.sizes(where, "kernel_size", kernel_size, self._nd)
        self._stride = rulebook.sizes(where, "stride", stride, self._nd)
        self._dilation = rulebook.sizes(where, "dilation", dilation, self._nd)
        rulebook.paddings(where, padding, self._nd, self._kernel_size, self._dilation)
        self._padding, self._groups, self._data_format = padding, groups, data_format
        self._in_channels, self._out_channels, self._key = in_channels, out_channels, key
        fan = int(np.prod(self._kernel_size)) * in_channels
        self.weight = self.create_parameter(self._kernel_size + [in_channels, out_channels],
                                            weight_attr,
                                            default_initializer=Normal(0.0, math.sqrt(2.0 / fan)))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x):
        fn = {(2, False): F.conv2d, (3, False): F.conv3d, (2, True): F.subm_conv2d,
              (3, True): F.subm_conv3d}[(self._nd, self._subm)]
        return fn(x, self.weight, self.bias, self._stride, self._padding, self._dilation,
                  self._groups, self._data_format)

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
                f", stride={self._stride}, padding={self._padding}, data_format="
                f"{self._data_format}")


class Conv2D(_Conv):
    """2-D sparse convolution of NHWC COO tensors."""
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, None, weight_attr, bias_attr, data_format)


class Conv3D(_Conv):
    """3-D sparse convolution of NDHWC COO tensors."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, None, weight_attr, bias_attr, data_format)


class SubmConv2D(_Conv):
    """2-D submanifold convolution: the output keeps the input's sites."""
    _nd = 2
    _subm = True


class SubmConv3D(_Conv):
    """3-D submanifold convolution: the output keeps the input's sites."""
    _subm = True


class MaxPool3D(Layer):
    """3-D max pooling of NDHWC COO tensors (stride defaults to the kernel size)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NDHWC", name=None):
        super().__init__()
        if return_mask:
            raise ArgumentError("MaxPool3D: return_mask=True is not supported for sparse "
                                "tensors (as in Paddle)")
        if data_format != "NDHWC":
            raise ArgumentError(f"MaxPool3D: data_format must be 'NDHWC', got {data_format!r}")
        self._kernel_size, self._stride, self._padding = kernel_size, stride, padding
        self._ceil_mode, self._data_format = ceil_mode, data_format

    def forward(self, x):
        return F.max_pool3d(x, self._kernel_size, self._stride, self._padding,
                            self._ceil_mode, self._data_format)

    def extra_repr(self):
        return (f"kernel_size={self._kernel_size}, stride={self._stride}, "
                f"padding={self._padding}")
