"""Comparisons and logical operators (Paddle's paddle.tensor.logic): bool results,
broadcasting, Python numbers allowed on either side."""
from ..framework.core import apply
from .scalars import as_operands, dtype_name_of, is_tensor

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "logical_and", "logical_or", "logical_not", "logical_xor", "equal_all", "allclose",
           "isclose", "is_tensor", "is_empty"]


def _compare(op):
    def f(x, y, name=None):
        return apply(op, *as_operands(x, y))

    f.__name__ = op
    f.__doc__ = f"Elementwise {op.replace('_', ' ')} (a bool tensor, broadcast)."
    return f


equal = _compare("equal")
not_equal = _compare("not_equal")
less_than = _compare("less_than")
less_equal = _compare("less_equal")
greater_than = _compare("greater_than")
greater_equal = _compare("greater_equal")


def _as_bool(x):
    if dtype_name_of(x) == "bool":
        return x
    return apply("cast", x, attrs={"out_dtype": "bool"})


def _logical(op):
    def f(x, y, out=None, name=None):
        x, y = as_operands(x, y)
        return apply(op, _as_bool(x), _as_bool(y), out=None if out is None else [out])

    f.__name__ = op
    f.__doc__ = f"Elementwise {op.replace('_', ' ')} of x and y read as bools (broadcast)."
    return f


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


def logical_not(x, out=None, name=None):
    """Elementwise not of x read as bools."""
    return apply("logical_not", _as_bool(x), out=None if out is None else [out])


def equal_all(x, y, name=None):
    """A 0-d bool tensor: True when x and y have one shape and equal elements."""
    from .reduction import all
    if list(x.shape) != list(y.shape):
        from .creation import full
        return full([], False, "bool")
    return all(equal(x, y))


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (NaNs equal when equal_nan)."""
    from .math import abs, add, isnan, multiply, subtract
    close = less_equal(abs(subtract(x, y)), add(multiply(abs(y), float(rtol)), float(atol)))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(x), isnan(y)))
    return close


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """A 0-d bool tensor: isclose holds everywhere."""
    from .reduction import all
    return all(isclose(x, y, rtol, atol, equal_nan))


def is_empty(x, name=None):
    """A 0-d bool tensor: x has no elements."""
    from .creation import full
    return full([], any(d == 0 for d in x.shape), "bool")
