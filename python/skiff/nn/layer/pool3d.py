"""3-D pooling layers (paddle.nn.MaxPool3D, AvgPool3D, AdaptiveAvgPool3D,
AdaptiveMaxPool3D), with Paddle 3.3's AdaptiveAvgPool3d / AdaptiveMaxPool3d aliases."""
from .. import functional as F
from .layers import Layer

__all__ = ["MaxPool3D", "AvgPool3D", "AdaptiveAvgPool3D", "AdaptiveMaxPool3D",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]


class MaxPool3D(Layer):
    """Maximum over kernel_size windows moved by stride (kernel_size when None)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format

    def forward(self, x):
        return F.max_pool3d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool3D(Layer):
    """Mean over kernel_size windows (see F.avg_pool3d for exclusive and divisor_override)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive = ceil_mode, exclusive
        self.divisor, self.data_format = divisor_override, data_format

    def forward(self, x):
        return F.avg_pool3d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3D(Layer):
    """Averages over windows tiling the input into output_size cells."""

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__()
        self._output_size, self._data_format = output_size, data_format

    def forward(self, x):
        return F.adaptive_avg_pool3d(x, self._output_size, self._data_format)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveMaxPool3D(Layer):
    """Maxima over windows tiling the input into output_size cells."""

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask = output_size, return_mask

    def forward(self, x):
        return F.adaptive_max_pool3d(x, self._output_size, self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


AdaptiveAvgPool3d, AdaptiveMaxPool3d = AdaptiveAvgPool3D, AdaptiveMaxPool3D
