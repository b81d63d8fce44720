"""Reductions over axes (sum, max, min, prod, all, any, logsumexp, count_nonzero) and
cumulative sums; Paddle keeps them in paddle.tensor.math."""
import numbers

from ..autograd import no_grad
from ..framework.core import apply
from .math import add, cast, exp, isfinite, log, run_cached, subtract
from .scalars import as_operands, constant, dtype_name_of, is_tensor

__all__ = ["sum", "max", "min", "amax", "amin", "prod", "all", "any", "cumsum", "logsumexp",
           "count_nonzero"]


def _axes(axis):
    if axis is None:
        return [], True
    if is_tensor(axis):
        axis = axis.tolist()
    if isinstance(axis, numbers.Integral):
        return [int(axis)], False
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


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of nonzero elements over ``axis`` (int64)."""
    nonzero = cast(apply("not_equal", *as_operands(x, 0)), "int64")
    return sum(nonzero, axis, keepdim=keepdim)
