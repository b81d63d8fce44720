"""Elementwise arithmetic (tensors with tensors or Python numbers), unary math,
reductions, cumulative sums and the in-place updates Paddle code uses."""
import atexit
import builtins
import math as _math

import numpy as np

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt
from ..framework.core import apply, eager_op
from ..framework.mode import mode
from .scalars import as_operands, coerce_pair, constant, dtype_name_of, is_float, is_tensor, \
    promote_for_scalar

__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod",
           "floor_mod", "scale", "pow", "neg", "exp", "log", "log1p", "sin", "cos", "tanh",
           "sigmoid", "sqrt", "rsqrt", "abs", "square", "reciprocal", "sign", "floor", "ceil",
           "round", "isnan", "isinf", "isfinite", "sum", "max", "min", "amax", "amin", "prod",
           "all", "any", "maximum", "minimum", "cumsum", "logsumexp", "clip", "cast",
           "increment", "add_", "subtract_", "multiply_", "scale_", "clip_", "zero_", "fill_",
           "exp_", "tanh_", "log2", "log10", "trunc", "add_n", "logaddexp", "count_nonzero",
           "nan_to_num", "clamp"]

# Hot ops hold their _C.Op: an eager call is then one C++ call.
_add = eager_op("elementwise_add")
_sub = eager_op("elementwise_sub")
_mul = eager_op("elementwise_mul")
_div = eager_op("elementwise_div")
_tanh = eager_op("tanh")
_scale_ops = {}
atexit.register(_scale_ops.clear)


_cached_ops = {}
# Ops left in caches at exit would trip the binding's leak check (Tensor's methods
# keep this module's functions alive past module teardown).
atexit.register(_cached_ops.clear)


def run_cached(type, key, attrs, *inputs):
    """Runs op ``type`` with ``attrs`` (eager: its _C.Op is found by the hashable ``key``,
    which must determine the attrs; static: appended as by apply)."""
    if mode.static:
        return apply(type, *inputs, attrs=attrs)
    op = _cached_ops.get((type, key))
    if op is None:
        if len(_cached_ops) > 8192:
            _cached_ops.clear()
        op = _cached_ops[(type, key)] = eager_op(type, attrs)
    return op(*inputs)


def _scaled(x, s, b):
    """s * x + b for Python numbers s, b (one cached scale op in eager mode)."""
    if mode.static:
        return apply("scale", x, attrs={"scale": float(s), "bias": float(b)})
    key = (s, b)
    op = _scale_ops.get(key)
    if op is None:
        if len(_scale_ops) > 4096:
            _scale_ops.clear()
        op = _scale_ops[key] = eager_op("scale", {"scale": float(s), "bias": float(b)})
    return op(x)


def _binary(op, fast, x, y):
    if mode.static:
        return apply(op, *as_operands(x, y))
    if not isinstance(y, Tensor) or not isinstance(x, Tensor):
        x, y = as_operands(x, y)
    return fast(x, y)


def add(x, y, name=None):
    """x + y with broadcasting; a Python number keeps x's dtype where it fits (Paddle)."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        return _add(x, y)
    x, y = coerce_pair(x, y)
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), 1, y)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), 1, x)
    return _binary("elementwise_add", _add, x, y)


def subtract(x, y, name=None):
    """x - y with broadcasting."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        return _sub(x, y)
    x, y = coerce_pair(x, y)
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), 1, -y)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), -1, x)
    return _binary("elementwise_sub", _sub, x, y)


def multiply(x, y, name=None):
    """x * y with broadcasting."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        return _mul(x, y)
    x, y = coerce_pair(x, y)
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), y, 0)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), x, 0)
    return _binary("elementwise_mul", _mul, x, y)


def _to_float(v):
    if is_tensor(v) and not is_float(v):
        return cast(v, "float32")
    return v if is_tensor(v) else float(v)


def divide(x, y, name=None):
    """x / y (true division: integer tensors divide as float32, as Paddle)."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static \
            and is_float(x):
        return _div(x, y)
    x, y = coerce_pair(x, y)
    return _binary("elementwise_div", _div, _to_float(x), _to_float(y))


def floor_divide(x, y, name=None):
    """floor(x / y) elementwise (integers: rounded toward -inf, like Python's //)."""
    return apply("elementwise_floordiv", *as_operands(x, y))


def remainder(x, y, name=None):
    """x - floor(x / y) * y: the remainder with the sign of y (Python's %)."""
    return apply("elementwise_mod", *as_operands(x, y))


mod = floor_mod = remainder


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias))."""
    if is_tensor(scale):
        out = multiply(x, scale)
        out = add(out, bias) if bias_after_scale else multiply(add(x, bias), scale)
    else:
        out = apply("scale", x, attrs={"scale": float(scale), "bias": float(bias),
                                       "bias_after_scale": bias_after_scale})
    if act is not None:
        out = apply(act, out)
    return out


def neg(x, name=None):
    return _scaled(x, -1, 0)


def pow(x, y, name=None):
    """x ** y for a number or a tensor y (integers stay integers)."""
    x, y = coerce_pair(x, y)
    if is_tensor(x) and not is_tensor(y):
        x = promote_for_scalar(x, y)
        if is_float(x):
            return apply("pow", x, attrs={"factor": float(y)})
    return apply("elementwise_pow", *as_operands(x, y))


def _unary(op, doc):
    def f(x, name=None):
        if mode.static:
            return apply(op, x)
        fast = _cached_ops.get(op)
        if fast is None:
            fast = _cached_ops[op] = eager_op(op)
        return fast(x)

    f.__name__ = op
    f.__doc__ = doc
    return f


exp = _unary("exp", "e ** x elementwise.")
log = _unary("log", "Natural logarithm elementwise.")
log1p = _unary("log1p", "log(1 + x) elementwise, accurate near 0.")
sin = _unary("sin", "Sine elementwise.")
cos = _unary("cos", "Cosine elementwise.")
sigmoid = _unary("sigmoid", "1 / (1 + exp(-x)) elementwise.")
sqrt = _unary("sqrt", "Square root elementwise.")
rsqrt = _unary("rsqrt", "1 / sqrt(x) elementwise.")
abs = _unary("abs", "|x| elementwise.")
square = _unary("square", "x * x elementwise.")
floor = _unary("floor", "The largest integer not above x, elementwise (gradient 0).")
ceil = _unary("ceil", "The smallest integer not below x, elementwise (gradient 0).")
round = _unary("round", "x rounded to the nearest integer, halves away from 0 (gradient 0).")
sign = _unary("sign", "-1, 0 or 1 by the sign of x, elementwise (gradient 0).")


def tanh(x, name=None):
    """Elementwise tanh."""
    if mode.static:
        return apply("tanh", x)
    return _tanh(x)


def log2(x, name=None):
    """Base-2 logarithm elementwise."""
    return _scaled(log(x), 1.0 / _math.log(2.0), 0)


def log10(x, name=None):
    """Base-10 logarithm elementwise."""
    return _scaled(log(x), 1.0 / _math.log(10.0), 0)


def trunc(x, name=None):
    """x rounded toward zero elementwise (gradient 0)."""
    return multiply(sign(x), floor(abs(x)))


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape (the sum op)."""
    if is_tensor(inputs):
        return inputs
    return apply("sum", list(inputs))


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) elementwise, computed stably."""
    hi = maximum(x, y)
    return add(hi, log1p(exp(neg(abs(subtract(x, y))))))


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of nonzero elements over ``axis`` (int64)."""
    nonzero = cast(apply("not_equal", *as_operands(x, 0)), "int64")
    return sum(nonzero, axis, keepdim=keepdim)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN, +inf and -inf replaced (by default: 0 and the dtype's extremes)."""
    big = float(np.finfo(dtype_name_of(x)).max)
    out = apply("where", isnan(x), constant(nan, dtype_name_of(x)), x)
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    out = apply("where", apply("equal", *as_operands(out, float("inf"))),
                constant(hi, dtype_name_of(x)), out)
    return apply("where", apply("equal", *as_operands(out, float("-inf"))),
                 constant(lo, dtype_name_of(x)), out)


def reciprocal(x, name=None):
    """1 / x elementwise."""
    return divide(1.0 if is_float(x) else 1, x)


def isnan(x, name=None):
    """True where x is NaN."""
    return apply("isnan", x)


def isinf(x, name=None):
    """True where x is +inf or -inf."""
    return apply("isinf", x)


def isfinite(x, name=None):
    """True where x is neither NaN nor infinite."""
    return apply("isfinite", x)


def _axes(axis):
    if axis is None:
        return [], True
    if is_tensor(axis):
        axis = axis.tolist()
    if isinstance(axis, int):
        return [axis], False
    axis = [int(a) for a in axis]
    return axis, len(axis) == 0


def _reduce(op, x, axis, keepdim):
    dims, reduce_all = _axes(axis)
    return run_cached(op, (tuple(dims), bool(keepdim), reduce_all), {
        "dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}, x)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (all dims when None); bool and int32 sum as int64 (Paddle)."""
    if dtype is not None:
        x = cast(x, dtype)
    elif dtype_name_of(x) in ("bool", "int32"):
        x = cast(x, "int64")
    return _reduce("reduce_sum", x, axis, keepdim)


def max(x, axis=None, keepdim=False, name=None):
    """The largest element over ``axis`` (all dims when None)."""
    return _reduce("reduce_max", x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):
    """The smallest element over ``axis`` (all dims when None)."""
    return _reduce("reduce_min", x, axis, keepdim)


amax, amin = max, min


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """The product over ``axis`` (all dims when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce("reduce_prod", x, axis, keepdim)


def all(x, axis=None, keepdim=False, name=None):
    """True where every element over ``axis`` is nonzero (a bool tensor)."""
    ints = cast(cast(x, "bool"), "int32")
    return cast(_reduce("reduce_min", ints, axis, keepdim), "bool")


def any(x, axis=None, keepdim=False, name=None):
    """True where some element over ``axis`` is nonzero (a bool tensor)."""
    ints = cast(cast(x, "bool"), "int32")
    return cast(_reduce("reduce_max", ints, axis, keepdim), "bool")


def maximum(x, y, name=None):
    """The larger of x and y elementwise (broadcast)."""
    return apply("elementwise_max", *as_operands(x, y))


def minimum(x, y, name=None):
    """The smaller of x and y elementwise (broadcast)."""
    return apply("elementwise_min", *as_operands(x, y))


def cumsum(x, axis=None, dtype=None, name=None):
    """Running sums along ``axis`` (of the flattened x when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        x = apply("flatten", x, attrs={"start_axis": 0, "stop_axis": -1})
        axis = 0
    return apply("cumsum", x, attrs={"axis": int(axis)})


def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over ``axis`` (all dims when None), computed stably."""
    dims, reduce_all = _axes(axis)
    attrs = {"dim": dims, "keep_dim": True, "reduce_all": reduce_all}
    from ..autograd import no_grad
    with no_grad():
        m = apply("reduce_max", x, attrs=attrs)
        m = apply("where", isfinite(m), m, constant(0.0, dtype_name_of(m)))
    total = apply("reduce_sum", exp(subtract(x, m)), attrs=attrs)
    out = add(log(total), m)
    if not keepdim:
        out = apply("squeeze", out, attrs={"axes": [] if reduce_all else dims})
        if reduce_all:
            out = apply("reshape", out, attrs={"shape": []})
    return out


def clip(x, min=None, max=None, name=None):
    """x limited to [min, max]."""
    return apply("clip", x, attrs=_clip_attrs(min, max))


def _clip_attrs(lo, hi):
    lo = float("-inf") if lo is None else float(lo)
    hi = float("inf") if hi is None else float(hi)
    return {"min": lo, "max": hi}


def clamp(x, min=None, max=None, name=None):
    return clip(x, min, max)


def cast(x, dtype):
    """``x`` converted to ``dtype``."""
    name = dt.dtype_name(dtype)
    return run_cached("cast", name, {"out_dtype": name}, x)


def increment(x, value=1.0, name=None):
    """x += value, in place (a loop counter)."""
    return apply("increment", x, attrs={"step": float(value)}, out=[x])


# ---- in-place updates: the result is written into x's value ----

def inplace(type, x, *inputs, attrs=None):
    """Runs op ``type`` on ``inputs`` and writes its (single) output into ``x``. In eager
    mode with gradients recorded, x then carries the op's history; x itself must not
    need a gradient (the tape keeps tensors, not versions of them)."""
    if mode.static or not _C.is_grad_enabled() or not builtins.any(
            isinstance(t, Tensor) and not t.stop_gradient for t in inputs):
        return apply(type, *inputs, attrs=attrs, out=[x])
    if not x.stop_gradient:
        raise _C.Error(f"op '{type}' in place: the tensor written ({x.name or 'unnamed'}, "
                       f"shape {x.shape}) needs a gradient, so it cannot be overwritten; "
                       f"use the out-of-place form")
    result = apply(type, *inputs, attrs=attrs)
    return apply("assign", result, out=[x])


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
