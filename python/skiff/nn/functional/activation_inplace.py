"""In-place activations (paddle.nn.functional.relu_, elu_, leaky_relu_, tanh_, softmax_,
hardtanh_, thresholded_relu_): the result is written back into the input tensor, which
is returned; gradients flow as through the out-of-place functions."""
from ... import _C_ops
from ...framework import arguments
from ...framework.arguments import dtype_name_of
from ...tensor.math import cast
from .activation import _name, _where_above

__all__ = ["elu_", "leaky_relu_", "tanh_", "softmax_", "hardtanh_", "thresholded_relu_"]


def elu_(x, alpha=1.0, name=None):
    """elu written back into ``x``."""
    return _C_ops.elu(x, alpha=float(alpha), out=[x])


def leaky_relu_(x, negative_slope=0.01, name=None):
    """leaky_relu written back into ``x``."""
    return _C_ops.leaky_relu(x, alpha=float(negative_slope), out=[x])


def tanh_(x, name=None):
    """tanh written back into ``x``."""
    return _C_ops.tanh(x, out=[x])


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """x clipped to [min, max] in place."""
    return _C_ops.clip(x, min=float(min), max=float(max), out=[x])


def softmax_(x, axis=-1, dtype=None, name=None):
    """softmax along ``axis`` written back into ``x`` (into its cast copy with ``dtype``)."""
    if dtype is not None and _name(dtype) != dtype_name_of(x):
        x = cast(x, _name(dtype))
    axis = arguments.axis("softmax_", axis, len(x.shape), scalar=True)
    return _C_ops.softmax(x, axis=axis, out=[x])


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """thresholded_relu written back into ``x``."""
    return _where_above(x, x, threshold, value, out=[x])
