"""Trigonometric and hyperbolic functions and their inverses, erf, erfinv, expm1, lgamma,
digamma, atan2, the modified Bessel functions i0, i0e, i1, i1e, polygamma, multigammaln,
the regularized incomplete gamma functions gammainc and gammaincc, nextafter and frexp (one
op each, with its grad op where Paddle has one), and their in-place variants. Integer
inputs compute in float32 (atan2: float64), as Paddle."""
import math

from .. import _C_ops
from ..framework import arguments
from ..framework.core import apply
from ..framework.mode import mode as _mode
from .creation import arange
from .scalars import as_operands, dtype_name_of, is_float, is_tensor

__all__ = ["tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "erf",
           "erfinv", "expm1", "lgamma", "gammaln", "digamma", "atan2",
           "tan_", "atan_", "asin_", "acos_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_",
           "erf_", "erfinv_", "expm1_", "lgamma_", "gammaln_", "digamma_",
           "i0", "i0e", "i1", "i1e", "i0_", "polygamma", "polygamma_", "multigammaln",
           "multigammaln_", "gammainc", "gammaincc", "gammainc_", "gammaincc_", "nextafter",
           "frexp"]


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


i0 = _unary("i0", "The modified Bessel function of the first kind of order 0, elementwise.")
i0e = _unary("i0e", "i0(x) * exp(-|x|) elementwise: I0 without its exponential growth.")
i1 = _unary("i1", "The modified Bessel function of the first kind of order 1, elementwise.")
i1e = _unary("i1e", "i1(x) * exp(-|x|) elementwise: I1 without its exponential growth.")
i0_ = _in_place("i0")


def _order(fn, n):
    """polygamma's n: an int >= 0 (TypeError for other types, ValueError below 0)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise arguments.ArgumentTypeError(f"{fn}: n must be an int, got "
                                          f"{type(n).__name__} {n!r}")
    if n < 0:
        raise arguments.ArgumentError(f"{fn}: n must be >= 0, got {n}")
    return n


def polygamma(x, n, name=None):
    """The n-th derivative of digamma at x, elementwise (n = 0: digamma itself)."""
    return _C_ops.polygamma(_floating(x, "polygamma"), n=_order("polygamma", n))


def polygamma_(x, n, name=None):
    """polygamma(x, n), written into x."""
    n = _order("polygamma_", n)
    if not is_float(arguments.tensor("polygamma_", "x", x)):
        raise arguments.ArgumentTypeError(f"polygamma_: x must be float32 or float64 to be "
                                          f"updated in place, got {dtype_name_of(x)}")
    return _C_ops.polygamma(x, n=n, out=[x])


def _dimension(fn, p):
    """multigammaln's p: an int >= 1."""
    if not isinstance(p, int) or isinstance(p, bool):
        raise arguments.ArgumentTypeError(f"{fn}: p must be an int, got "
                                          f"{type(p).__name__} {p!r}")
    if p < 1:
        raise arguments.ArgumentError(f"{fn}: p must be >= 1, got {p}")
    return p


def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension p, elementwise:
    p (p - 1) / 4 log(pi) + the sum over i < p of lgamma(x - i / 2)."""
    p = _dimension("multigammaln", p)
    x = arguments.tensor("multigammaln", "x", x)
    if not is_float(x):
        raise arguments.ArgumentTypeError(f"multigammaln: x must be float32 or float64, got "
                                          f"{dtype_name_of(x)}")
    # One lgamma over x broadcast against the p offsets -i/2 (no loop of p ops).
    offsets = _C_ops.scale(arange(0, p, 1, dtype_name_of(x)), scale=-0.5)
    rank = len(x.shape)
    terms = _C_ops.lgamma(_C_ops.elementwise_add(_C_ops.unsqueeze(x, axes=[rank]), offsets))
    total = _C_ops.reduce_sum(terms, dim=[rank], keep_dim=False, reduce_all=False)
    return _C_ops.scale(total, bias=p * (p - 1) / 4 * math.log(math.pi))


def _write(fn, x, value):
    """``value`` written into x (the in-place variants); their dtypes must agree."""
    if dtype_name_of(value) != dtype_name_of(x):
        raise arguments.ArgumentTypeError(f"{fn}: the result is {dtype_name_of(value)} but x "
                                          f"is {dtype_name_of(x)}; x cannot hold it")
    return _C_ops.assign(value, out=[x])


def multigammaln_(x, p, name=None):
    """multigammaln(x, p), written into x."""
    return _write("multigammaln_", x, multigammaln(x, p))


def _float_pair(fn, x, y):
    """(x, y) as tensors of one float dtype (float32 with float64 gives float64); a
    TypeError for other dtypes."""
    arguments.tensor(fn, "x", x)
    arguments.tensor(fn, "y", y)
    for param, v in (("x", x), ("y", y)):
        if not is_float(v):
            raise arguments.ArgumentTypeError(f"{fn}: {param} must be float32 or float64, got "
                                              f"{dtype_name_of(v)}")
    if dtype_name_of(x) != dtype_name_of(y):
        x, y = [_C_ops.cast(v, out_dtype="float64") for v in (x, y)]
    return x, y


def _gamma_operands(fn, x, y):
    """gammainc's operands, checked (in eager mode) to be >= 0 as Paddle checks them."""
    x, y = _float_pair(fn, x, y)
    if not _mode.static:
        for param, v in (("x", x), ("y", y)):
            if (v.numpy() < 0).any():
                raise arguments.ArgumentError(f"{fn}: every element of {param} must be >= 0")
    return x, y


def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y) = the integral of
    t^(x-1) e^-t from 0 to y over gamma(x), elementwise with broadcasting; x, y >= 0."""
    return _C_ops.gammainc(*_gamma_operands("gammainc", x, y))


def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y)."""
    return _C_ops.gammaincc(*_gamma_operands("gammaincc", x, y))


def gammainc_(x, y, name=None):
    """gammainc(x, y), written into x."""
    return _write("gammainc_", x, gammainc(x, y))


def gammaincc_(x, y, name=None):
    """gammaincc(x, y), written into x."""
    return _write("gammaincc_", x, gammaincc(x, y))


def nextafter(x, y, name=None):
    """The next representable float after x toward y, elementwise with broadcasting."""
    return _C_ops.nextafter(*_float_pair("nextafter", x, y))


def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2^exponent and 0.5 <= |mantissa| < 1, both
    in x's dtype (float32 or float64)."""
    x = arguments.tensor("frexp", "x", x)
    if not is_float(x):
        raise arguments.ArgumentTypeError(f"frexp: x must be float32 or float64, got "
                                          f"{dtype_name_of(x)}")
    return _C_ops.frexp(x)

