"""torch.nn-style layers of paddle.compat.nn: Linear holds its weight [out_features,
in_features] and takes PyTorch's arguments; Softmax takes ``dim``."""
import math

from ...nn import Layer
from ...nn.initializer import Uniform
from ...framework import arguments
from . import functional

__all__ = ["Linear", "Softmax", "functional"]


class Linear(Layer):
    """y = x · weightᵀ + bias with weight [out_features, in_features] and bias
    [out_features] (bias=False: none), both drawn from U(-1/√in, 1/√in) as PyTorch's."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = arguments.count("Linear", "in_features", in_features)
        self.out_features = arguments.count("Linear", "out_features", out_features)
        bound = 1.0 / math.sqrt(self.in_features) if self.in_features else 0.0
        init = Uniform(-bound, bound)
        dtype = None if dtype is None else arguments.dtype("Linear", dtype)
        self.weight = self.create_parameter([self.out_features, self.in_features],
                                            dtype=dtype, default_initializer=init)
        self.bias = self.create_parameter([self.out_features], dtype=dtype,
                                          default_initializer=init, is_bias=True) \
            if arguments.flag("Linear", "bias", bias) else None

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Softmax(Layer):
    """softmax along ``dim`` (None: PyTorch's implicit choice, see functional.softmax)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return functional.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
