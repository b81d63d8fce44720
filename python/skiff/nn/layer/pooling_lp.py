"""Power-average pooling and max unpooling layers (paddle.nn.LPPool1D, LPPool2D,
MaxUnPool1D, MaxUnPool2D, MaxUnPool3D)."""
from ..functional.pooling_lp import lp_pool1d, lp_pool2d
from ..functional.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from .layers import Layer

__all__ = ["LPPool1D", "LPPool2D", "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D"]


class _LPPool(Layer):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.padding, self.ceil_mode, self.data_format = padding, ceil_mode, data_format

    def forward(self, x):
        return type(self)._fn(x, self.norm_type, self.kernel_size, self.stride, self.padding,
                              self.ceil_mode, self.data_format)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class LPPool1D(_LPPool):
    """(sum of x^norm_type)^(1 / norm_type) over windows of [N, C, L] inputs."""
    _fn = staticmethod(lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCL", name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format, name)


class LPPool2D(_LPPool):
    """(sum of x^norm_type)^(1 / norm_type) over windows of [N, C, H, W] inputs."""
    _fn = staticmethod(lp_pool2d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format, name)


class _MaxUnPool(Layer):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format, self.output_size = data_format, output_size

    def forward(self, x, indices):
        return type(self)._fn(x, indices, self.ksize, self.stride, self.padding,
                              self.data_format, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPool):
    """Undoes MaxPool1D(return_mask=True): forward(x, indices)."""
    _fn = staticmethod(max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPool):
    """Undoes MaxPool3D(return_mask=True): forward(x, indices)."""
    _fn = staticmethod(max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPool):
    """Undoes MaxPool2D(return_mask=True): forward(x, indices)."""
    _fn = staticmethod(max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


