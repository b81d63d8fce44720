"""Comparisons and logical operators (Paddle's paddle.tensor.logic): bool results,
broadcasting, Python numbers allowed on either side."""
from .. import _C_ops
from ..framework.core import apply
from ..framework.tensor_params import ANY, FLOATING, OPERAND, accepts
from .scalars import as_operands, dtype_name_of, is_tensor as _is_tensor
from .math import abs, add, isnan, multiply, subtract
from .reduction import all
from .creation import full
from .creation import to_tensor

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "logical_and", "logical_or", "logical_not", "logical_xor", "equal_all", "allclose",
           "isclose", "is_tensor", "is_empty", "gt", "ge", "lt", "le", "eq", "ne", "less",
           "greater", "equal_", "not_equal_", "less_than_", "less_equal_", "greater_than_",
           "greater_equal_", "less_", "logical_and_", "logical_or_", "logical_xor_",
           "logical_not_", "isin", "isneginf", "isposinf", "isreal", "is_floating_point",
           "is_integer", "is_complex"]


def _compare(op):
    def f(x, y, name=None):
        return apply(op, *as_operands(x, y, op))

    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"Elementwise {op.replace('_', ' ')} (a bool tensor, broadcast)."
    return accepts(x=OPERAND, y=OPERAND)(f)


equal = _compare("equal")
not_equal = _compare("not_equal")
less_than = _compare("less_than")
less_equal = _compare("less_equal")
greater_than = _compare("greater_than")
greater_equal = _compare("greater_equal")
gt, ge, lt, le, eq, ne = (greater_than, greater_equal, less_than, less_equal, equal,
                          not_equal)
less, greater = less_than, greater_than


def _as_bool(x):
    if dtype_name_of(x) == "bool":
        return x
    return _C_ops.cast(x, out_dtype="bool")


def _logical(op):
    def f(x, y, out=None, name=None):
        x, y = as_operands(x, y, op)
        return apply(op, _as_bool(x), _as_bool(y), out=None if out is None else [out])

    f.__name__ = f.__qualname__ = op
    f.__doc__ = f"Elementwise {op.replace('_', ' ')} of x and y read as bools (broadcast)."
    return accepts(x=OPERAND, y=OPERAND)(f)


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


def logical_not(x, out=None, name=None):
    """Elementwise not of x read as bools."""
    return _C_ops.logical_not(_as_bool(x), out=None if out is None else [out])


def equal_all(x, y, name=None):
    """A 0-d bool tensor: True when x and y have one shape and equal elements."""
    if list(x.shape) != list(y.shape):
        return full([], False, "bool")
    return all(equal(x, y))


@accepts(x=OPERAND, y=FLOATING)
def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (NaNs equal when equal_nan)."""
    close = less_equal(abs(subtract(x, y)), add(multiply(abs(y), float(rtol)), float(atol)))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


@accepts(x=OPERAND, y=FLOATING)
def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A 0-d bool tensor: isclose holds everywhere."""
    return all(isclose(x, y, rtol, atol, equal_nan))


@accepts(x=ANY)
def is_tensor(x):
    """True for a Tensor (or a static Variable), whatever x is."""
    return _is_tensor(x)


def is_empty(x, name=None):
    """A 0-d bool tensor: x has no elements."""
    return full([], any(d == 0 for d in x.shape), "bool")


def _in_place(fn):
    """fn (a comparison or logical function of x and y) written into x, with fn's
    parameters (so that a missing argument is reported for the function called)."""
    def f(x, y, name=None):
        return _C_ops.assign(fn(x, y), out=[x])

    f.__name__ = f.__qualname__ = fn.__name__ + "_"
    f.__doc__ = f"{fn.__name__}, written into x (which becomes a bool tensor)."
    return accepts(y=OPERAND)(f)


def logical_not_(x, name=None):
    """logical_not, written into x (which becomes a bool tensor)."""
    return _C_ops.assign(logical_not(x), out=[x])


equal_ = _in_place(equal)
not_equal_ = _in_place(not_equal)
less_than_ = less_ = _in_place(less_than)
less_equal_ = _in_place(less_equal)
greater_than_ = _in_place(greater_than)
greater_equal_ = _in_place(greater_equal)
logical_and_ = _in_place(logical_and)
logical_or_ = _in_place(logical_or)
logical_xor_ = _in_place(logical_xor)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """A bool tensor shaped like x: whether each element of x is among test_x's
    (negated with invert)."""
    if not _is_tensor(test_x):
        test_x = to_tensor(test_x, dtype=dtype_name_of(x))
    if assume_unique:
        return _isin_of_unique(x, test_x, invert)
    rank = len(x.shape)
    col = _C_ops.unsqueeze(x, axes=[rank])
    row = _C_ops.reshape(test_x, shape=[-1])
    hits = _C_ops.equal(col, row)
    found = _C_ops.reduce_max(_C_ops.cast(hits, out_dtype="int32"), dim=[rank], keep_dim=False,
                              reduce_all=False)
    compare = _C_ops.not_equal if invert else _C_ops.equal
    return compare(found, _C_ops.fill_constant(shape=[], value=1.0, dtype="int32"))


def _isin_of_unique(x, test_x, invert):
    """isin for x and test_x each without repeats (numpy's and Paddle's assume_unique
    path: one stable sort of both, neighbours compared; repeats give its answer too)."""
    flat = _C_ops.concat([_C_ops.reshape(x, shape=[-1]), _C_ops.reshape(test_x, shape=[-1])],
                         axis=0)
    n = flat.shape[0]
    if n < 2:
        return _C_ops.fill_any_like(x, value=1.0 if invert else 0.0, dtype="bool")
    ordered, order = _C_ops.top_k(flat, k=n, axis=0, largest=False, sorted=True)
    head = _C_ops.slice(ordered, axes=[0], starts=[1], ends=[n])
    tail = _C_ops.slice(ordered, axes=[0], starts=[0], ends=[n - 1])
    same = (_C_ops.not_equal if invert else _C_ops.equal)(head, tail)
    last = _C_ops.fill_constant(shape=[1], value=1.0 if invert else 0.0, dtype="bool")
    flags = _C_ops.concat([same, last], axis=0)
    unsorted = _C_ops.scatter(_C_ops.fill_any_like(flags, value=0.0, dtype="bool"), order,
                              flags, overwrite=True)
    size = 1
    for d in x.shape:
        size *= d
    return _C_ops.reshape(_C_ops.slice(unsorted, axes=[0], starts=[0], ends=[size]),
                          shape=list(x.shape))


def _signed_inf(x, positive):
    if dtype_name_of(x) not in ("float32", "float64", "bfloat16"):
        return _C_ops.fill_any_like(x, value=0.0, dtype="bool")
    side = greater_than(x, 0) if positive else less_than(x, 0)
    return _C_ops.logical_and(_C_ops.isinf(x), side)


def isposinf(x, name=None):
    """Whether each element of x is +inf (a bool tensor)."""
    return _signed_inf(x, True)


def isneginf(x, name=None):
    """Whether each element of x is -inf (a bool tensor)."""
    return _signed_inf(x, False)


def isreal(x, name=None):
    """Whether each element of x is real: its imaginary part is 0 (always, for a real x)."""
    if dtype_name_of(x) in ("complex64", "complex128"):
        im = _C_ops.imag(x)
        return _C_ops.equal(im, _C_ops.fill_any_like(im, value=0.0, dtype=""))
    return _C_ops.fill_any_like(x, value=1.0, dtype="bool")


def is_floating_point(x):
    """True when x holds floats."""
    return dtype_name_of(x) in ("float32", "float64", "bfloat16")


def is_integer(x):
    """True when x holds integers (bool is not an integer dtype)."""
    if not _is_tensor(x):
        raise TypeError(f"is_integer: x must be a Tensor, got {type(x).__name__}")
    return dtype_name_of(x) in ("int8", "uint8", "int16", "int32", "int64")


def is_complex(x):
    """True when x holds complex numbers (complex64 or complex128)."""
    if not _is_tensor(x):
        raise TypeError(f"is_complex: x must be a Tensor, got {type(x).__name__}")
    return dtype_name_of(x) in ("complex64", "complex128")


from . import bitwise as _bitwise  # noqa: E402
from .bitwise import *  # noqa: E402,F401,F403

__all__ += _bitwise.__all__

from . import random_fill as _random_fill  # noqa: E402
from .random_fill import *  # noqa: E402,F401,F403

__all__ += _random_fill.__all__
