"""Fractional max pooling layers (paddle.nn.FractionalMaxPool2D, FractionalMaxPool3D)."""
from ..functional.pool_fractional import fractional_max_pool2d, fractional_max_pool3d
from .layers import Layer

__all__ = ["FractionalMaxPool2D", "FractionalMaxPool3D"]


class _FractionalMaxPool(Layer):
    _fn = None

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False,
                 name=None):
        super().__init__()
        self._output_size, self._kernel_size = output_size, kernel_size
        self._random_u, self._return_mask, self._name = random_u, return_mask, name

    def forward(self, x):
        return type(self)._fn(x, self._output_size, self._kernel_size, self._random_u,
                              self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool2D(_FractionalMaxPool):
    """fractional_max_pool2d of [N, C, H, W] inputs (a new random u each call unless
    random_u is given)."""
    _fn = staticmethod(fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPool):
    """fractional_max_pool3d of [N, C, D, H, W] inputs."""
    _fn = staticmethod(fractional_max_pool3d)
