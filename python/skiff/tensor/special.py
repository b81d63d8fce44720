"""Trigonometric and hyperbolic functions and their inverses, erf, erfinv, expm1, lgamma,
digamma and atan2 (one op each, with its grad op), and their in-place variants. Integer
inputs compute in float32 (atan2: float64), as Paddle."""
from .. import _C_ops
from ..framework import arguments
from ..framework.core import apply
from .scalars import as_operands, dtype_name_of, is_float, is_tensor

__all__ = ["tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "erf",
           "erfinv", "expm1", "lgamma", "gammaln", "digamma", "atan2",
           "tan_", "atan_", "asin_", "acos_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_",
           "erf_", "erfinv_", "expm1_", "lgamma_", "gammaln_", "digamma_"]


def _floating(x, fn):
    name = dtype_name_of(arguments.tensor(fn, "x", x))
    if name == "bool":
        raise TypeError(f"{fn}: x must be a float or integer tensor, got bool")
    return x if is_float(x) else _C_ops.cast(x, out_dtype="float32")


def _unary(op, doc):
    def f(x, name=None):
        return apply(op, _floating(x, op))

    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc
    return f


def _in_place(op):
    def f(x, name=None):
        if not is_float(arguments.tensor(op + "_", "x", x)):
            raise arguments.ArgumentTypeError(f"{op}_: x must be float32 or float64 to be "
                                              f"updated in place, got {dtype_name_of(x)}")
        return apply(op, x, out=[x])

    f.__name__ = f.__qualname__ = op + "_"
    f.__doc__ = f"{op}(x), written into x."
    return f


tan = _unary("tan", "Tangent elementwise.")
atan = _unary("atan", "Arctangent elementwise, in (-pi/2, pi/2).")
asin = _unary("asin", "Arcsine elementwise, in [-pi/2, pi/2] (NaN outside [-1, 1]).")
acos = _unary("acos", "Arccosine elementwise, in [0, pi] (NaN outside [-1, 1]).")
sinh = _unary("sinh", "Hyperbolic sine elementwise.")
cosh = _unary("cosh", "Hyperbolic cosine elementwise.")
asinh = _unary("asinh", "Inverse hyperbolic sine elementwise.")
acosh = _unary("acosh", "Inverse hyperbolic cosine elementwise (NaN below 1).")
atanh = _unary("atanh", "Inverse hyperbolic tangent elementwise (+-inf at +-1).")
erf = _unary("erf", "The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.")
erfinv = _unary("erfinv", "The inverse error function: erf(erfinv(x)) == x on (-1, 1).")
expm1 = _unary("expm1", "exp(x) - 1 elementwise, accurate near 0.")
lgamma = _unary("lgamma", "log|gamma(x)| elementwise (+inf at 0, -1, -2, ...).")
digamma = _unary("digamma", "The derivative of lgamma, elementwise (-inf at 0).")


def gammaln(x, name=None):
    """log|gamma(x)| elementwise (the same as lgamma)."""
    return lgamma(x)


tan_, atan_, asin_, acos_, sinh_, cosh_, asinh_, acosh_, atanh_, erf_, erfinv_, expm1_, \
    lgamma_, digamma_ = [_in_place(op) for op in (
        "tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "erf",
        "erfinv", "expm1", "lgamma", "digamma")]
gammaln_ = lgamma_


def atan2(x, y, name=None):
    """The angle of the point (y, x) elementwise, in (-pi, pi] (broadcast); integers give
    float64, as Paddle."""
    if not is_tensor(x) or not is_tensor(y):
        raise TypeError(f"atan2: x and y must be Tensors, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if not is_float(x) or not is_float(y):
        x, y = [v if is_float(v) else _C_ops.cast(v, out_dtype="float64")
                for v in (x, y)]
    return _C_ops.atan2(*as_operands(x, y, "atan2"))
