"""Reductions over axes (sum, max, min, prod, all, any, logsumexp, count_nonzero) and
cumulative sums; Paddle keeps them in paddle.tensor.math."""
from .. import _C_ops
from .._C import Error, Tensor
from ..framework import arguments
from ..framework.grad_mode import no_grad
from ..framework.mode import mode
from ..framework.tensor_params import self_checked
from .complex_math import complex_reduce, is_complex_value
from .math import add, cast, exp, isfinite, log, run_cached, subtract
from .scalars import as_operands, constant, dtype_name_of

__all__ = ["reduce_as", "sum", "max", "min", "amax", "amin", "prod", "all", "any", "cumsum", "logsumexp",
           "count_nonzero"]


def _axes(fn, x, axis):
    """(dims, reduce_all) for reducing x over ``axis`` (None or []: every dim), each dim
    checked against x's rank and made non-negative; a 0-D x takes axis 0 and -1."""
    if axis is None:
        return [], True
    rank = len(arguments.tensor(fn, "x", x).shape)
    if axis.__class__ is int and -rank <= axis < rank:
        dims = [axis + rank if axis < 0 else axis]
    else:
        dims = arguments.axes(fn, axis, rank, scalar=True)
    if rank == 0:
        return [], True
    return dims, len(dims) == 0


def _reduce(op, x, axis, keepdim, fn):
    """Reduction ``op`` of x over ``axis`` for the public function ``fn``: an int axis goes
    to the op as it is (which checks it; on its failure the axis is checked here, to name
    fn), others are checked first."""
    if axis.__class__ is int and not mode.static:
        dims, reduce_all = [axis], False
    else:
        dims, reduce_all = _axes(fn, x, axis)
    try:
        return run_cached(op, (tuple(dims), bool(keepdim), reduce_all), {
            "dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}, x)
    except Error:
        if op in ("reduce_sum", "reduce_mean") and is_complex_value(x):
            return complex_reduce(lambda part: _reduce(op, part, axis, keepdim, fn), x)
        arguments.explain_op_failure(fn, x, op)
        _axes(fn, x, axis)
        raise


@self_checked  # by _reduce
def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over ``axis`` (all dims when None); bool and int32 sum as int64 (Paddle)."""
    if dtype is not None:
        x = cast(arguments.tensor("sum", "x", x), dtype)
    elif (x._dtype_name if x.__class__ is Tensor else
          dtype_name_of(arguments.tensor("sum", "x", x))) in ("bool", "int32"):
        x = cast(x, "int64")
    return _reduce("reduce_sum", x, axis, keepdim, "sum")


@self_checked  # by _reduce
def max(x, axis=None, keepdim=False, name=None):
    """The largest element over ``axis`` (all dims when None)."""
    return _reduce("reduce_max", x, axis, keepdim, "max")


@self_checked  # by _reduce
def min(x, axis=None, keepdim=False, name=None):
    """The smallest element over ``axis`` (all dims when None)."""
    return _reduce("reduce_min", x, axis, keepdim, "min")


amax, amin = max, min


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """The product over ``axis`` (all dims when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce("reduce_prod", x, axis, keepdim, "prod")


def all(x, axis=None, keepdim=False, name=None):
    """True where every element over ``axis`` is nonzero (a bool tensor)."""
    # Counting the zeros gives the empty reduction its answer, True.
    zeros = cast(_C_ops.logical_not(cast(x, "bool")), "int64")
    return _C_ops.equal(*as_operands(_reduce("reduce_sum", zeros, axis, keepdim, "all"), 0))


def any(x, axis=None, keepdim=False, name=None):
    """True where some element over ``axis`` is nonzero (a bool tensor)."""
    # Counting the nonzeros gives the empty reduction its answer, False.
    nonzero = cast(cast(x, "bool"), "int64")
    return _C_ops.greater_than(*as_operands(_reduce("reduce_sum", nonzero, axis, keepdim,
                                                      "any"), 0))


def cumsum(x, axis=None, dtype=None, name=None):
    """Running sums along ``axis`` (of the flattened x when None)."""
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        x = _C_ops.flatten(x, start_axis=0, stop_axis=-1)
        axis = 0
    axis = arguments.op_axis("cumsum", axis, x, scalar=True)
    try:
        return _C_ops.cumsum(x, axis=axis)
    except Error:
        arguments.axis("cumsum", axis, len(x.shape), scalar=True)
        raise


def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over ``axis`` (all dims when None), computed stably."""
    dims, reduce_all = _axes("logsumexp", x, axis)
    attrs = {"dim": dims, "keep_dim": True, "reduce_all": reduce_all}
    if 0 in x.shape:  # nothing to sum: log(0) = -inf, no shift needed (nor a max to take)
        out = log(_C_ops.reduce_sum(exp(x), **attrs))
    else:
        with no_grad():
            m = _C_ops.reduce_max(x, **attrs)
            m = _C_ops.where(isfinite(m), m, constant(0.0, dtype_name_of(m)))
        out = add(log(_C_ops.reduce_sum(exp(subtract(x, m)), **attrs)), m)
    if not keepdim:
        out = _C_ops.squeeze(out, axes=[] if reduce_all else dims)
        if reduce_all:
            out = _C_ops.reshape(out, shape=[])
    return out


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of nonzero elements over ``axis`` (int64)."""
    _axes("count_nonzero", x, axis)
    nonzero = cast(_C_ops.not_equal(*as_operands(x, 0)), "int64")
    return sum(nonzero, axis, keepdim=keepdim)


def reduce_as(x, target, name=None):
    """x summed down to target's shape: over the leading dims target lacks and the dims
    where target has size 1 (the reverse of broadcasting target to x)."""
    shape, goal = list(x.shape), list(target.shape)
    lead = len(shape) - len(goal)
    if lead < 0:
        raise arguments.ArgumentError(f"reduce_as: target's shape {goal} has more dims than "
                                      f"x's {shape}")
    out = sum(x, list(range(lead))) if lead else x
    stretched = [i for i, n in enumerate(goal) if n == 1 and shape[lead + i] != 1]
    return sum(out, stretched, keepdim=True) if stretched else out
