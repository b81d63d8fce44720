"""Elementwise arithmetic, matrix products, unary math and reductions."""
import numpy as np

from .._C import Tensor
from ..framework import dtype as dt
from ..framework.core import apply, eager_op
from ..framework.mode import mode

__all__ = ["add", "subtract", "multiply", "divide", "matmul", "mm", "bmm", "scale", "pow",
           "exp", "log", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "square", "sum", "mean",
           "max", "min", "prod", "maximum", "minimum", "cast", "neg", "clip"]

# Hot ops hold their _C.Op: a call is then one C++ call (eager mode).
_add = eager_op("elementwise_add")
_sub = eager_op("elementwise_sub")
_mul = eager_op("elementwise_mul")
_div = eager_op("elementwise_div")
_matmul = eager_op("matmul")
_tanh = eager_op("tanh")


def _scalar_like(value, x):
    """``value`` as a 0-d tensor of ``x``'s dtype (for mixed tensor/scalar arithmetic)."""
    from .creation import full
    return full([], value, x.dtype)


def _binary(op, fast, x, y):
    if not isinstance(y, (Tensor,)) and not _is_var(y):
        y = _scalar_like(y, x)
    if not isinstance(x, (Tensor,)) and not _is_var(x):
        x = _scalar_like(x, y)
    if mode.static:
        return apply(op, x, y)
    return fast(x, y)


def _is_var(v):
    return mode.static and hasattr(v, "block")


def add(x, y, name=None):
    """x + y with broadcasting."""
    return _binary("elementwise_add", _add, x, y)


def subtract(x, y, name=None):
    return _binary("elementwise_sub", _sub, x, y)


def multiply(x, y, name=None):
    return _binary("elementwise_mul", _mul, x, y)


def divide(x, y, name=None):
    return _binary("elementwise_div", _div, x, y)


def maximum(x, y, name=None):
    return _binary("elementwise_max", eager_op("elementwise_max"), x, y)


def minimum(x, y, name=None):
    return _binary("elementwise_min", eager_op("elementwise_min"), x, y)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product over the last two dims, batch dims broadcast."""
    if not (transpose_x or transpose_y) and not mode.static:
        return _matmul(x, y)
    return apply("matmul", x, y, attrs={"trans_x": transpose_x, "trans_y": transpose_y})


def mm(input, mat2, name=None):
    return matmul(input, mat2)


def bmm(x, y, name=None):
    return matmul(x, y)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias))."""
    out = apply("scale", x, attrs={"scale": float(scale), "bias": float(bias),
                                   "bias_after_scale": bias_after_scale})
    if act is not None:
        out = apply(act, out)
    return out


def neg(x, name=None):
    return scale(x, -1.0)


def pow(x, y, name=None):
    """x ** y for a number y."""
    if isinstance(y, Tensor) or _is_var(y):
        return exp(multiply(log(x), y))
    return apply("pow", x, attrs={"factor": float(y)})


def _unary(op):
    fast = eager_op(op)

    def f(x, name=None):
        if mode.static:
            return apply(op, x)
        return fast(x)

    f.__name__ = op
    f.__doc__ = f"Elementwise {op}."
    return f


exp = _unary("exp")
log = _unary("log")
sigmoid = _unary("sigmoid")
sqrt = _unary("sqrt")
rsqrt = _unary("rsqrt")
abs = _unary("abs")
square = _unary("square")


def tanh(x, name=None):
    """Elementwise tanh."""
    if mode.static:
        return apply("tanh", x)
    return _tanh(x)


def _axes(axis):
    if axis is None:
        return [], True
    if isinstance(axis, (int, np.integer)):
        return [int(axis)], False
    axis = list(axis)
    return axis, len(axis) == 0


def _reduce(op, x, axis, keepdim):
    dims, reduce_all = _axes(axis)
    return apply(op, x, attrs={"dim": dims, "keep_dim": keepdim, "reduce_all": reduce_all})


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (all dims when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce("reduce_sum", x, axis, keepdim)


def mean(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_mean", x, axis, keepdim)


def max(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_max", x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):
    return _reduce("reduce_min", x, axis, keepdim)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce("reduce_prod", x, axis, keepdim)


def cast(x, dtype):
    """``x`` converted to ``dtype``."""
    return apply("cast", x, attrs={"out_dtype": dt.dtype_name(dtype)})


def clip(x, min=None, max=None, name=None):
    """x limited to [min, max]."""
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    return apply("clip", x, attrs={"min": lo, "max": hi})
