"""Elementwise functions Paddle has at top level that compose other ops exactly: logit,
rad2deg, deg2rad, hypot, sinc, frac, copysign, heaviside, signbit, lerp, fmax, fmin, sgn,
ldexp, and the NaN-skipping reductions nansum and nanmean (with in-place variants
where Paddle has them)."""
from .. import _C_ops
import math as _math

from ..framework import arguments
from ..framework.tensor_params import OPERAND, accepts
from .complex_math import complex_sgn
from .math import (abs, add, cast, clip, divide, isnan, log, maximum,
                   minimum, multiply, sign, sin, sqrt, subtract, trunc)
from .scalars import as_operands, constant, dtype_name_of, is_float, is_tensor
from .reduction import _axes, sum

__all__ = ["logit", "logit_", "rad2deg", "deg2rad", "hypot", "hypot_", "sinc", "sinc_", "frac",
           "frac_", "trunc_", "copysign", "copysign_", "heaviside", "signbit", "lerp", "lerp_",
           "fmax", "fmin", "nansum", "nanmean", "sgn", "ldexp", "ldexp_"]


def _tensor(x, fn, arg="x"):
    return arguments.tensor(fn, arg, x)


def _as_float(x, fn):
    _tensor(x, fn)
    if dtype_name_of(x) == "bool":
        raise TypeError(f"{fn}: x must be a float or integer tensor, got bool")
    return x if is_float(x) else cast(x, "float32")


def _write(x, value):
    """``value`` written into x (the in-place variants)."""
    if dtype_name_of(value) != dtype_name_of(x):
        raise TypeError(f"in-place update: the result is {dtype_name_of(value)} but x is "
                        f"{dtype_name_of(x)}")
    return _C_ops.assign(value, out=[x])


def _where(cond, a, b):
    return _C_ops.where(cond, *as_operands(a, b))


def logit(x, eps=None, name=None):
    """log(x / (1 - x)) elementwise, x first clipped to [eps, 1 - eps] when eps is given."""
    x = _as_float(x, "logit")
    if eps is not None:
        x = clip(x, float(eps), 1.0 - float(eps))
    return log(divide(x, subtract(1.0, x)))


def logit_(x, eps=None, name=None):
    return _write(x, logit(x, eps))


def rad2deg(x, name=None):
    """Radians to degrees (integers give float32)."""
    return multiply(_as_float(x, "rad2deg"), 180.0 / _math.pi)


def deg2rad(x, name=None):
    """Degrees to radians (integers give float32)."""
    return multiply(_as_float(x, "deg2rad"), _math.pi / 180.0)


def hypot(x, y, name=None):
    """sqrt(x^2 + y^2) elementwise (broadcast; integers give float32)."""
    x, y = _as_float(x, "hypot"), _as_float(_tensor(y, "hypot", "y"), "hypot")
    return sqrt(add(multiply(x, x), multiply(y, y)))


def hypot_(x, y, name=None):
    return _write(x, hypot(x, y))


def sinc(x, name=None):
    """sin(pi x) / (pi x) elementwise, 1 at 0 (where its gradient is 0)."""
    _tensor(x, "sinc")
    if not is_float(x):
        raise TypeError(f"sinc: x must be float32 or float64, got {dtype_name_of(x)}")
    zero = _C_ops.equal(*as_operands(x, 0.0))
    px = multiply(_where(zero, 1.0, x), _math.pi)  # no 0/0 in the branch not taken
    return _where(zero, 1.0, divide(sin(px), px))


def sinc_(x, name=None):
    return _write(x, sinc(x))


def frac(x, name=None):
    """x - trunc(x): the fractional part, with x's sign (0 for integers)."""
    _tensor(x, "frac")
    return subtract(x, trunc(x))


def frac_(x, name=None):
    return _write(x, frac(x))


def trunc_(x, name=None):
    """x rounded toward zero, written into x."""
    return _write(_tensor(x, "trunc_"), trunc(x))


def signbit(x, name=None):
    """True where x's sign bit is set: negative values and -0.0 (a bool tensor)."""
    _tensor(x, "signbit")
    negative = _C_ops.less_than(*as_operands(x, 0))
    if not is_float(x):
        return negative
    # -0.0 == 0, but 1 / -0.0 is -inf
    zero = _C_ops.equal(*as_operands(x, 0.0))
    minus_zero = _C_ops.logical_and(zero, _C_ops.less_than(*as_operands(divide(1.0, x), 0.0)))
    return _C_ops.logical_or(negative, minus_zero)


@accepts(y=OPERAND)
def copysign(x, y, name=None):
    """|x| with the sign of y (its sign bit, so -0.0 counts as negative), broadcast."""
    _tensor(x, "copysign")
    if is_tensor(y):
        flip = signbit(y)
    else:
        y = arguments.number("copysign", "y", y)
        flip = constant(_math.copysign(1.0, y) < 0, "bool")
    magnitude = abs(x)
    return _where(flip, multiply(magnitude, -1), magnitude)


@accepts(y=OPERAND)
def copysign_(x, y, name=None):
    return _write(x, copysign(x, y))


def heaviside(x, y, name=None):
    """The step function: 0 where x < 0, y where x == 0, 1 where x > 0 (broadcast)."""
    _tensor(x, "heaviside")
    _tensor(y, "heaviside", "y")
    step = cast(_C_ops.greater_than(*as_operands(x, 0)), dtype_name_of(x))
    return _where(_C_ops.equal(*as_operands(x, 0)), y, step)


@accepts(weight=OPERAND)
def lerp(x, y, weight, name=None):
    """x + weight * (y - x) elementwise (broadcast); weight a number or a tensor."""
    _tensor(x, "lerp")
    _tensor(y, "lerp", "y")
    return add(x, multiply(weight, subtract(y, x)))


@accepts(weight=OPERAND)
def lerp_(x, y, weight, name=None):
    return _write(x, lerp(x, y, weight))


@accepts(x=OPERAND, y=OPERAND)
def fmax(x, y, name=None):
    """The larger of x and y elementwise, ignoring a NaN on either side (broadcast)."""
    return _nan_ignoring(maximum, x, y)


@accepts(x=OPERAND, y=OPERAND)
def fmin(x, y, name=None):
    """The smaller of x and y elementwise, ignoring a NaN on either side (broadcast)."""
    return _nan_ignoring(minimum, x, y)


def _nan_ignoring(pick, x, y):
    x, y = as_operands(x, y)
    out = pick(x, y)
    if not is_float(x):
        return out
    return _where(isnan(y), x, _where(isnan(x), y, out))


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum over ``axis`` (all dims when None) treating NaN as 0."""
    _tensor(x, "nansum")
    _axes("nansum", x, axis)
    if is_float(x):
        x = _where(isnan(x), 0.0, x)
    return sum(x, axis, dtype=dtype, keepdim=keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """The mean over ``axis`` of the non-NaN elements (NaN where there are none)."""
    _tensor(x, "nanmean")
    _axes("nanmean", x, axis)
    if not is_float(x):
        raise TypeError(f"nanmean: x must be float32 or float64, got {dtype_name_of(x)}")
    present = _C_ops.logical_not(isnan(x))
    count = sum(cast(present, dtype_name_of(x)), axis, keepdim=keepdim)
    return divide(nansum(x, axis, keepdim=keepdim), count)



def sgn(x, name=None):
    """The sign of x: -1, 0 or 1 elementwise, x / |x| for complex numbers (0 at 0);
    float and complex tensors only, as Paddle."""
    _tensor(x, "sgn")
    if dtype_name_of(x) in ("complex64", "complex128"):
        return complex_sgn(x)
    if not is_float(x):
        raise TypeError(f"sgn: x must be float32, float64, complex64 or complex128, got {dtype_name_of(x)}")
    return sign(x)


def ldexp(x, y, name=None):
    """x * 2 ** y elementwise (broadcast; integer x gives float32)."""
    x = _as_float(x, "ldexp")
    _tensor(y, "ldexp", "y")
    if dtype_name_of(y) == "bool":
        raise TypeError("ldexp: y must be an integer or float tensor, got bool")
    power = _C_ops.elementwise_pow(*as_operands(2.0, cast(y, dtype_name_of(x))))
    return multiply(x, power)


def ldexp_(x, y, name=None):
    """ldexp(x, y), written into x (integer x becomes float32)."""
    return _C_ops.assign(ldexp(x, y), out=[x])
