"""Gated activations (paddle.nn.functional): swiglu, composed of the split, silu and
elementwise_mul ops."""
from ...tensor.manipulation import split
from ...tensor.math import multiply
from ...framework.tensor_params import FLOATING, accepts
from .activation import silu

__all__ = ["swiglu"]


@accepts(x=FLOATING)
def swiglu(x, y=None, name=None):
    """silu(x) * y; when ``y`` is None, x is cut in two halves a, b along the last axis
    and the result is silu(a) * b."""
    shape = [int(s) for s in x.shape]
    if y is None:
        if not shape:
            raise ValueError("swiglu: x must have at least one dimension when y is None")
        last = shape[-1]
        if last >= 0 and last % 2 != 0:
            raise ValueError(f"swiglu: the last dimension of x must be even when y is None, "
                             f"got shape {shape}")
        x, y = split(x, 2, -1)
    else:
        other = [int(s) for s in y.shape]
        if len(other) != len(shape) or any(
                a != b and a >= 0 and b >= 0 for a, b in zip(shape, other)):
            raise ValueError(f"swiglu: x and y must have the same shape, got {shape} and "
                             f"{other}")
    return multiply(silu(x), y)
