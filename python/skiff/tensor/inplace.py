"""In-place updates (x.add_(y), x.zero_(), ...): the result is written into x's value."""
from ..framework.core import apply
from .math import _clip_attrs
from .scalars import as_operands

__all__ = ["add_", "subtract_", "multiply_", "scale_", "clip_", "zero_", "fill_", "exp_", "tanh_"]


def inplace(type, x, *inputs, attrs=None):
    """Runs op ``type`` on ``inputs`` and writes its (single) output into ``x``. With
    gradients recorded, x then carries the op's history, and the op's inputs keep
    theirs from before the update; a leaf that wants a gradient cannot be updated."""
    return apply(type, *inputs, attrs=attrs, out=[x])


def add_(x, y, name=None):
    return inplace("elementwise_add", x, *as_operands(x, y))


def subtract_(x, y, name=None):
    return inplace("elementwise_sub", x, *as_operands(x, y))


def multiply_(x, y, name=None):
    return inplace("elementwise_mul", x, *as_operands(x, y))


def scale_(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    return inplace("scale", x, x, attrs={"scale": float(scale), "bias": float(bias),
                                         "bias_after_scale": bias_after_scale})


def clip_(x, min=None, max=None, name=None):
    return inplace("clip", x, x, attrs=_clip_attrs(min, max))


def exp_(x, name=None):
    return inplace("exp", x, x)


def tanh_(x, name=None):
    return inplace("tanh", x, x)


def fill_(x, value):
    """Every element of x set to ``value``, in place."""
    return inplace("fill_any_like", x, x, attrs={"value": float(value)})


def zero_(x):
    return fill_(x, 0.0)
