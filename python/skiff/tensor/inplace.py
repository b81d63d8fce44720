"""In-place updates (x.add_(y), x.zero_(), ...): the result is written into x's value."""
import inspect

from .. import _C_ops
from ..framework.core import apply
from ..framework.tensor_params import FLOATING, OPERAND, accepts
from .linalg import t
from .math import (_clip_attrs, cast, ceil, div, floor, floor_divide, log10, log1p, log2, pow,
                   reciprocal, remainder, round, rsqrt, sigmoid, sqrt)
from .reduction import cumsum
from .scattering import put_along_axis
from .scalars import as_operands
from .search import where

__all__ = ["add_", "subtract_", "multiply_", "scale_", "clip_", "zero_", "fill_", "exp_", "tanh_",
           "sin_", "cos_", "abs_", "square_", "log_", "log2_", "log10_", "pow_", "tril_",
           "triu_", "cast_", "where_", "cumsum_", "floor_divide_", "remainder_", "mod_",
           "floor_mod_", "divide_", "sqrt_", "rsqrt_", "floor_", "ceil_", "sigmoid_", "log1p_",
           "reciprocal_", "round_", "mul_", "clamp_", "t_", "put_along_axis_"]


def inplace(type, x, *inputs, attrs=None):
    """Runs op ``type`` on ``inputs`` and writes its (single) output into ``x``. With
    gradients recorded, x then carries the op's history, and the op's inputs keep
    theirs from before the update; a leaf that wants a gradient cannot be updated."""
    return apply(type, *inputs, attrs=attrs, out=[x])


@accepts(y=OPERAND)
def add_(x, y, name=None):
    return inplace("elementwise_add", x, *as_operands(x, y, "add_"))


@accepts(y=OPERAND)
def subtract_(x, y, name=None):
    return inplace("elementwise_sub", x, *as_operands(x, y, "subtract_"))


@accepts(y=OPERAND)
def multiply_(x, y, name=None):
    return inplace("elementwise_mul", x, *as_operands(x, y, "multiply_"))


mul_ = multiply_


def scale_(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    return inplace("scale", x, x, attrs={"scale": float(scale), "bias": float(bias),
                                         "bias_after_scale": bias_after_scale})


def clip_(x, min=None, max=None, name=None):
    return inplace("clip", x, x, attrs=_clip_attrs(min, max))


clamp_ = clip_


def exp_(x, name=None):
    return inplace("exp", x, x)


def tanh_(x, name=None):
    return inplace("tanh", x, x)


def fill_(x, value):
    """Every element of x set to ``value``, in place."""
    return inplace("fill_any_like", x, x, attrs={"value": float(value)})


def zero_(x):
    return fill_(x, 0.0)


def write(x, value):
    """``value`` written into x, which takes its shape, dtype and history (Paddle's
    in-place functions may change both, as int x.divide_(y) becoming float does)."""
    return _C_ops.assign(value, out=[x])


def _unary_in_place(op):
    def f(x, name=None):
        return inplace(op, x, x)

    f.__name__ = f.__qualname__ = op + "_"
    f.__doc__ = f"{op}(x), written into x."
    return f


sin_, cos_, abs_, square_, log_ = [_unary_in_place(op) for op in ("sin", "cos", "abs",
                                                                  "square", "log")]


@accepts(x=FLOATING)
def log2_(x, name=None):
    """log2(x), written into x."""
    return write(x, log2(x))


@accepts(x=FLOATING)
def log10_(x, name=None):
    """log10(x), written into x."""
    return write(x, log10(x))


@accepts(y=OPERAND)
def pow_(x, y, name=None):
    """x ** y (a number or a tensor), written into x."""
    return write(x, pow(x, y))


def tril_(x, diagonal=0, name=None):
    """tril(x, diagonal), written into x."""
    return inplace("tril_triu", x, x, attrs={"diagonal": int(diagonal), "lower": True})


def triu_(x, diagonal=0, name=None):
    """triu(x, diagonal), written into x."""
    return inplace("tril_triu", x, x, attrs={"diagonal": int(diagonal), "lower": False})


def cast_(x, dtype):
    """x converted to ``dtype`` in place: x takes the new dtype."""
    return write(x, cast(x, dtype))


@accepts(y=OPERAND)
def where_(condition, x=None, y=None, name=None):
    """where(condition, x, y), written into x."""
    if x is None or y is None:
        raise TypeError("where_: x and y must both be given")
    return write(x, where(condition, x, y))


def cumsum_(x, axis=None, dtype=None, name=None):
    """cumsum(x, axis, dtype), written into x (axis None: x becomes the 1-D running sums)."""
    return write(x, cumsum(x, axis, dtype))


@accepts(y=OPERAND)
def floor_divide_(x, y, name=None):
    """floor_divide(x, y), written into x."""
    return write(x, floor_divide(x, y))


@accepts(y=OPERAND)
def remainder_(x, y, name=None):
    """remainder(x, y) (the sign of y), written into x."""
    return write(x, remainder(x, y))


mod_ = floor_mod_ = remainder_


@accepts(y=OPERAND)
def divide_(x, y, name=None, *, rounding_mode=None):
    """div(x, y, rounding_mode), written into x (integer x becomes float under true
    division, as Paddle)."""
    return write(x, div(x, y, rounding_mode=rounding_mode))


def _written(fn):
    """fn(x, ...) written into x."""
    def f(x, *args, name=None, **kwargs):
        try:
            inspect.signature(fn).bind(x, *args, **kwargs)
        except TypeError as e:  # named for what the user called
            raise TypeError(f"{fn.__name__}_: {e}") from None
        return write(x, fn(x, *args, **kwargs))

    f.__name__ = f.__qualname__ = fn.__name__ + "_"
    f.__doc__ = f"{fn.__name__}(x, ...), written into x."
    return f


sqrt_, rsqrt_, floor_, ceil_, sigmoid_, log1p_, reciprocal_, round_, t_ = [
    _written(fn) for fn in (sqrt, rsqrt, floor, ceil, sigmoid, log1p, reciprocal, round, t)]


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True):
    """put_along_axis(arr, indices, values, axis, ...), written into arr."""
    return write(arr, put_along_axis(arr, indices, values, axis, reduce, include_self,
                                     broadcast))
