"""Elementwise functions of one sparse tensor: each maps the stored values with skiff's
dense function and keeps the pattern (COO or CSR), so f(0) = 0 is assumed, as Paddle's
sparse kernels do (isnan, cast and pow included)."""
from ..framework import arguments
from ..framework import dtype as dt
from .. import tensor as T
from .tensor import SparseCooTensor, require_sparse

__all__ = ["sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square",
           "log1p", "abs", "pow", "cast", "neg", "deg2rad", "rad2deg", "expm1", "isnan"]


def map_values(fn_name, x, fn):
    """x's pattern holding fn(values)."""
    x = require_sparse(fn_name, x)
    return x._with_values(fn(x._values))


def _unary(name, dense, doc):
    def op(x, name=None):
        return map_values(op.__name__, x, dense)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


sin = _unary("sin", T.sin, "sin of the stored values of a sparse tensor.")
tan = _unary("tan", T.tan, "tan of the stored values of a sparse tensor.")
asin = _unary("asin", T.asin, "asin of the stored values of a sparse tensor.")
atan = _unary("atan", T.atan, "atan of the stored values of a sparse tensor.")
sinh = _unary("sinh", T.sinh, "sinh of the stored values of a sparse tensor.")
tanh = _unary("tanh", T.tanh, "tanh of the stored values of a sparse tensor.")
asinh = _unary("asinh", T.asinh, "asinh of the stored values of a sparse tensor.")
atanh = _unary("atanh", T.atanh, "atanh of the stored values of a sparse tensor.")
sqrt = _unary("sqrt", T.sqrt, "sqrt of the stored values of a sparse tensor.")
square = _unary("square", T.square, "The square of the stored values of a sparse tensor.")
log1p = _unary("log1p", T.log1p, "log(1 + x) of the stored values of a sparse tensor.")
abs = _unary("abs", T.abs, "|x| of the stored values of a sparse tensor.")
neg = _unary("neg", T.neg, "-x of the stored values of a sparse tensor.")
expm1 = _unary("expm1", T.expm1, "exp(x) - 1 of the stored values of a sparse tensor.")
deg2rad = _unary("deg2rad", T.deg2rad, "Degrees to radians, of the stored values.")
rad2deg = _unary("rad2deg", T.rad2deg, "Radians to degrees, of the stored values.")
isnan = _unary("isnan", T.isnan, "A bool sparse tensor of the same pattern: which stored "
                                 "values are NaN.")


def pow(x, factor, name=None):
    """x ** factor of the stored values (factor a number)."""
    if not isinstance(factor, int) or isinstance(factor, bool):
        factor = arguments.number("pow", "factor", factor)
    return map_values("pow", x, lambda v: T.pow(v, factor))


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """x with its indices (crows/cols) cast to ``index_dtype`` and its values to
    ``value_dtype`` (each left alone when None)."""
    x = require_sparse("cast", x)
    values = x._values if value_dtype is None else T.cast(x._values, value_dtype)
    if index_dtype is None:
        return x._with_values(values)
    index_dtype = dt.dtype_name(index_dtype)
    if index_dtype not in ("int8", "int16", "int32", "int64", "uint8"):
        raise arguments.ArgumentTypeError(f"cast: index_dtype must be an integer dtype, got "
                                          f"{index_dtype}")
    if isinstance(x, SparseCooTensor):
        return SparseCooTensor(T.cast(x._indices, index_dtype), values, x._shape,
                               x._coalesced)
    out = x._with_values(values)
    out._crows = T.cast(x._crows, index_dtype)
    out._cols = T.cast(x._cols, index_dtype)
    return out
