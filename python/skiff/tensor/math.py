"""Elementwise arithmetic (tensors with tensors or Python numbers) and its Paddle
aliases, unary math, clipping and casts; the special functions (special.py) and the
composed elementwise functions (composite.py) join this module's names."""
from .. import _C_ops
import atexit
import math as _math

import numpy as np

from .._C import Error, Tensor
from ..framework import arguments, dtype as dt
from ..framework.core import apply, eager_op
from ..framework.tensor_params import FLOATING, OPERAND, TENSORS_OR_TENSOR, accepts, \
    self_checked
from ..framework.mode import mode
from .complex_math import complex_abs, complex_operands, is_complex_value
from .scalars import as_operands, coerce_pair, constant, dtype_name_of, is_float, is_tensor, \
    promote_for_scalar

__all__ = ["stanh", "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "mod",
           "floor_mod", "scale", "pow", "neg", "exp", "log", "log1p", "sin", "cos", "tanh",
           "sigmoid", "sqrt", "rsqrt", "abs", "square", "reciprocal", "sign", "floor", "ceil",
           "round", "isnan", "isinf", "isfinite", "maximum", "minimum", "clip", "cast",
           "increment", "log2", "log10", "trunc", "add_n", "logaddexp", "nan_to_num", "clamp",
           "div", "sub", "mul", "true_divide", "negative", "positive", "neg_", "div_", "sub_"]

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
        return _C_ops.scale(x, scale=float(s), bias=float(b))
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


def _complex_binary(op, x, y):
    """Arithmetic op of x and y, one of them complex: both made one complex dtype."""
    return getattr(_C_ops, op)(*complex_operands(x, y))


@self_checked  # by coerce_pair
def add(x, y, name=None):
    """x + y with broadcasting; a Python number keeps x's dtype where it fits (Paddle)."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        try:
            return _add(x, y)
        except Error:
            if not (is_complex_value(x) or is_complex_value(y)):
                raise
    if is_complex_value(x) or is_complex_value(y):
        return _complex_binary("elementwise_add", x, y)
    x, y = coerce_pair(x, y, "add")
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), 1, y)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), 1, x)
    return _binary("elementwise_add", _add, x, y)


@self_checked  # by coerce_pair
def subtract(x, y, name=None):
    """x - y with broadcasting."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        try:
            return _sub(x, y)
        except Error:
            if not (is_complex_value(x) or is_complex_value(y)):
                raise
    if is_complex_value(x) or is_complex_value(y):
        return _complex_binary("elementwise_sub", x, y)
    x, y = coerce_pair(x, y, "subtract")
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), 1, -y)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), -1, x)
    return _binary("elementwise_sub", _sub, x, y)


@self_checked  # by coerce_pair
def multiply(x, y, name=None):
    """x * y with broadcasting."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static:
        try:
            return _mul(x, y)
        except Error:
            if not (is_complex_value(x) or is_complex_value(y)):
                raise
    if is_complex_value(x) or is_complex_value(y):
        return _complex_binary("elementwise_mul", x, y)
    x, y = coerce_pair(x, y, "multiply")
    if not is_tensor(y):
        return _scaled(promote_for_scalar(x, y), y, 0)
    if not is_tensor(x):
        return _scaled(promote_for_scalar(y, x), x, 0)
    return _binary("elementwise_mul", _mul, x, y)


def _to_float(v):
    if is_tensor(v) and not is_float(v):
        return cast(v, "float32")
    return v if is_tensor(v) else float(v)


@self_checked  # by coerce_pair
def divide(x, y, name=None):
    """x / y (true division: integer tensors divide as float32, as Paddle)."""
    if isinstance(y, Tensor) and isinstance(x, Tensor) and not mode.static \
            and is_float(x):
        try:
            return _div(x, y)
        except Error:
            if not is_complex_value(y):
                raise
    if is_complex_value(x) or is_complex_value(y):
        return _complex_binary("elementwise_div", x, y)
    x, y = coerce_pair(x, y, "divide")
    return _binary("elementwise_div", _div, _to_float(x), _to_float(y))


@accepts(x=OPERAND, y=OPERAND)
def floor_divide(x, y, name=None):
    """floor(x / y) elementwise (integers: rounded toward -inf, like Python's //)."""
    return _C_ops.elementwise_floordiv(*as_operands(x, y, "floor_divide"))


@accepts(x=OPERAND, y=OPERAND)
def remainder(x, y, name=None):
    """x - floor(x / y) * y: the remainder with the sign of y (Python's %)."""
    return _C_ops.elementwise_mod(*as_operands(x, y, "remainder"))


mod = floor_mod = remainder


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias))."""
    if is_tensor(scale):
        out = multiply(x, scale)
        out = add(out, bias) if bias_after_scale else multiply(add(x, bias), scale)
    else:
        out = _C_ops.scale(x, scale=float(scale), bias=float(bias),
                           bias_after_scale=bias_after_scale)
    if act is not None:
        if not isinstance(act, str):
            raise arguments.ArgumentTypeError(f"scale: act must be the name of an activation "
                                              f"op or None, got {type(act).__name__}")
        out = apply(act, out)
    return out


def neg(x, name=None):
    """-x elementwise."""
    return _scaled(x, -1, 0)


def negative(x, name=None):
    """-x elementwise (the same as neg)."""
    return neg(x)


def positive(x, name=None):
    """x itself (+x); bool tensors are refused, as Paddle."""
    if dtype_name_of(x) == "bool":
        raise TypeError("positive: the + operator does not apply to a bool tensor")
    return x


@accepts(x=OPERAND, y=OPERAND)
def mul(x, y, name=None):
    """x * y with broadcasting (the same as multiply)."""
    return multiply(x, y)


@accepts(x=OPERAND, y=OPERAND)
def sub(x, y, name=None, *, alpha=1):
    """x - alpha * y with broadcasting."""
    return subtract(x, y if alpha == 1 else multiply(y, alpha))


@accepts(x=OPERAND, y=OPERAND)
def div(x, y, name=None, *, rounding_mode=None):
    """x / y; rounding_mode None: true division, "trunc": rounded toward zero, "floor":
    rounded toward -inf (integers stay integers under both)."""
    if rounding_mode is None:
        return divide(x, y)
    if rounding_mode == "floor":
        return floor_divide(x, y)
    if rounding_mode != "trunc":
        raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    x, y = as_operands(x, y, "div")
    if is_float(x):
        return trunc(divide(x, y))
    wide = trunc(divide(cast(x, "float64"), cast(y, "float64")))  # exact below 2**53
    return cast(wide, dtype_name_of(x))


@accepts(input=OPERAND, other=OPERAND)
def true_divide(input, other, name=None):
    """input / other (true division)."""
    return divide(input, other)


def _write(x, value, fn):
    if dtype_name_of(value) != dtype_name_of(x):
        raise TypeError(f"{fn}: the result is {dtype_name_of(value)} but x is "
                        f"{dtype_name_of(x)}; it cannot be written into x")
    return _C_ops.assign(value, out=[x])


def neg_(x, name=None):
    """-x, written into x."""
    return _write(x, neg(x), "neg_")


@accepts(y=OPERAND)
def sub_(x, y, name=None, *, alpha=1):
    """x - alpha * y, written into x."""
    return _write(x, sub(x, y, alpha=alpha), "sub_")


@accepts(y=OPERAND)
def div_(x, y, name=None, *, rounding_mode=None):
    """div(x, y, rounding_mode), written into x."""
    return _write(x, div(x, y, rounding_mode=rounding_mode), "div_")


@accepts(x=OPERAND, y=OPERAND)
def pow(x, y, name=None):
    """x ** y for a number or a tensor y (integers stay integers)."""
    x, y = coerce_pair(x, y, "pow")
    if is_tensor(x) and not is_tensor(y):
        x = promote_for_scalar(x, y)
        if is_float(x):
            return _C_ops.pow(x, factor=float(y))
    return _C_ops.elementwise_pow(*as_operands(x, y, "pow"))


def _unary(op, doc):
    def f(x, name=None):
        if mode.static:
            return apply(op, arguments.tensor(op, "x", x))
        fast = _cached_ops.get(op)
        if fast is None:
            fast = _cached_ops[op] = eager_op(op)
        try:
            return fast(x)
        except Error:
            arguments.explain_op_failure(op, x)
            raise

    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc
    return self_checked(f)



exp = _unary("exp", "e ** x elementwise.")
log = _unary("log", "Natural logarithm elementwise.")
log1p = _unary("log1p", "log(1 + x) elementwise, accurate near 0.")
sin = _unary("sin", "Sine elementwise.")
cos = _unary("cos", "Cosine elementwise.")
sigmoid = _unary("sigmoid", "1 / (1 + exp(-x)) elementwise.")
sqrt = _unary("sqrt", "Square root elementwise.")
rsqrt = _unary("rsqrt", "1 / sqrt(x) elementwise.")
_real_abs = _unary("abs", "|x| elementwise.")


@self_checked
def abs(x, name=None):
    """|x| elementwise (the real modulus of a complex x)."""
    if is_complex_value(x):
        return complex_abs(x)
    return _real_abs(x)
square = _unary("square", "x * x elementwise.")
floor = _unary("floor", "The largest integer not above x, elementwise (gradient 0).")
ceil = _unary("ceil", "The smallest integer not below x, elementwise (gradient 0).")
_round_away = _unary("round", "x rounded to the nearest integer, halves away from 0.")
sign = _unary("sign", "-1, 0 or 1 by the sign of x, elementwise (gradient 0).")


@self_checked
def tanh(x, name=None):
    """Elementwise tanh."""
    if mode.static:
        return _C_ops.tanh(arguments.tensor("tanh", "x", x))
    try:
        return _tanh(x)
    except Error:
        arguments.explain_op_failure("tanh", x)
        raise


@accepts(x=FLOATING)
def log2(x, name=None):
    """Base-2 logarithm elementwise."""
    return _scaled(log(x), 1.0 / _math.log(2.0), 0)


@accepts(x=FLOATING)
def log10(x, name=None):
    """Base-10 logarithm elementwise."""
    return _scaled(log(x), 1.0 / _math.log(10.0), 0)


def round(x, decimals=0, name=None):
    """x rounded to ``decimals`` places, halves to the even neighbour as Paddle and numpy
    (gradient 0). Integer tensors are returned as they are."""
    x = arguments.tensor("round", "x", x)
    if not is_float(x):
        return x
    decimals = arguments.integer("round", "decimals", decimals)
    if decimals:
        scaled = _C_ops.scale(x, scale=10.0 ** decimals)
        return _C_ops.scale(round(scaled), scale=10.0 ** -decimals)
    name = dtype_name_of(x)
    away = _round_away(x)
    a = _C_ops.abs(x)
    tie = _C_ops.equal(_C_ops.elementwise_sub(a, _C_ops.floor(a)), constant(0.5, name))
    odd = _C_ops.not_equal(_C_ops.elementwise_mod(away, constant(2.0, name)), constant(0.0, name))
    back = _C_ops.elementwise_mul(_C_ops.cast(tie, out_dtype=name), _C_ops.cast(odd, out_dtype=name))
    return _C_ops.elementwise_sub(away, _C_ops.elementwise_mul(back, _C_ops.sign(x)))


def trunc(x, name=None):
    """x rounded toward zero elementwise (gradient 0)."""
    return multiply(sign(x), floor(abs(x)))


@accepts(inputs=TENSORS_OR_TENSOR)
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape (the sum op)."""
    if is_tensor(inputs):
        return inputs
    return _C_ops.sum(list(inputs))


@accepts(x=OPERAND, y=OPERAND)
def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) elementwise, computed stably."""
    hi = maximum(x, y)
    return add(hi, log1p(exp(neg(abs(subtract(x, y))))))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN, +inf and -inf replaced (by default: 0 and the dtype's extremes)."""
    big = float(np.finfo(dtype_name_of(x)).max)
    out = _C_ops.where(isnan(x), constant(nan, dtype_name_of(x)), x)
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    out = _C_ops.where(_C_ops.equal(*as_operands(out, float("inf"))),
                       constant(hi, dtype_name_of(x)), out)
    return _C_ops.where(_C_ops.equal(*as_operands(out, float("-inf"))),
                        constant(lo, dtype_name_of(x)), out)


def reciprocal(x, name=None):
    """1 / x elementwise."""
    return divide(1.0 if is_float(x) else 1, x)


def isnan(x, name=None):
    """True where x is NaN."""
    return _C_ops.isnan(x)


def isinf(x, name=None):
    """True where x is +inf or -inf."""
    return _C_ops.isinf(x)


def isfinite(x, name=None):
    """True where x is neither NaN nor infinite."""
    return _C_ops.isfinite(x)


@accepts(x=OPERAND, y=OPERAND)
def maximum(x, y, name=None):
    """The larger of x and y elementwise (broadcast)."""
    return _C_ops.elementwise_max(*as_operands(x, y, "maximum"))


@accepts(x=OPERAND, y=OPERAND)
def minimum(x, y, name=None):
    """The smaller of x and y elementwise (broadcast)."""
    return _C_ops.elementwise_min(*as_operands(x, y, "minimum"))


def clip(x, min=None, max=None, name=None):
    """x limited to [min, max]."""
    return _C_ops.clip(x, **_clip_attrs(min, max))


def _clip_attrs(lo, hi):
    lo = float("-inf") if lo is None else float(lo)
    hi = float("inf") if hi is None else float(hi)
    return {"min": lo, "max": hi}


def clamp(x, min=None, max=None, name=None):
    return clip(x, min, max)


def cast(x, dtype):
    """``x`` converted to ``dtype``."""
    try:
        name = dt.dtype_name(dtype)
    except (TypeError, ValueError):
        name = arguments.dtype("cast", dtype)  # raises, naming cast and its argument
    return run_cached("cast", name, {"out_dtype": name}, x)


def increment(x, value=1.0, name=None):
    """x += value, in place (a loop counter)."""
    return _C_ops.increment(x, step=float(value), out=[x])


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x), elementwise."""
    x = arguments.tensor("stanh", "x", x)
    return _C_ops.scale(tanh(_C_ops.scale(x, scale=float(scale_a))), scale=float(scale_b))


# Paddle keeps these in paddle.tensor.math; skiff writes them in special.py.
from .special import (frexp, gammainc, gammaincc, i0, i0e, i1, i1e,  # noqa: E402,F401
                      multigammaln, nextafter, polygamma)
