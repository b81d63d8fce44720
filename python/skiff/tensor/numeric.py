"""Value clean-up, differences and integrals: nan_to_num, diff, trapezoid and
cumulative_trapezoid (Paddle's paddle.tensor.math)."""
from .. import _C_ops
from ..framework import arguments
from ..framework.dtype_limits import finfo
from .manipulation import concat
from .scalars import constant, dtype_name_of, is_tensor

__all__ = ["nan_to_num", "nan_to_num_", "diff", "trapezoid", "cumulative_trapezoid"]


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by
    default the largest and lowest finite values of x's dtype)."""
    name_ = dtype_name_of(x)
    if name_ not in ("float32", "float64", "bfloat16"):
        return _C_ops.assign(x)
    info = finfo(name_)
    big = info.max if posinf is None else float(posinf)
    low = info.min if neginf is None else float(neginf)
    zero = constant(0, name_)
    infs = _C_ops.isinf(x)
    out = _C_ops.where(_C_ops.isnan(x), constant(float(nan), name_), x)
    out = _C_ops.where(_C_ops.logical_and(infs, _C_ops.greater_than(x, zero)), constant(big, name_),
                       out)
    return _C_ops.where(_C_ops.logical_and(infs, _C_ops.less_than(x, zero)), constant(low, name_),
                        out)


def nan_to_num_(x, nan=0.0, posinf=None, neginf=None, name=None):
    """nan_to_num, in place."""
    return _C_ops.assign(nan_to_num(x, nan, posinf, neginf), out=[x])


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along ``axis``: out[i] = x[i + 1] - x[i], applied n
    times, after joining ``prepend`` and ``append`` to x along that axis (bool x: xor)."""
    rank = len(x.shape)
    if rank == 0:
        raise arguments.ArgumentError("diff: x must have at least 1 dim")
    n = arguments.count("diff", "n", n)
    axis = arguments.axis("diff", axis, rank)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [p if is_tensor(p) else constant(p, dtype_name_of(x)) for p in parts]
        parts = [_C_ops.expand(p, shape=list(x.shape[:axis]) + [1] +
                                           list(x.shape[axis + 1:])) if not p.shape else p
                 for p in parts]
        x = concat(parts, axis)
    is_bool = dtype_name_of(x) == "bool"
    if x.shape[axis] >= 0:
        n = min(n, x.shape[axis])  # each step shortens the axis by one; an empty one stays
    for _ in range(n):
        size = x.shape[axis]
        head = _C_ops.slice(x, axes=[axis], starts=[1], ends=[size])
        tail = _C_ops.slice(x, axes=[axis], starts=[0], ends=[max(size - 1, 0)])
        x = (_C_ops.logical_xor if is_bool else _C_ops.elementwise_sub)(head, tail)
    return x


def _trapezoids(fn, y, x, dx, axis):
    """The areas of the trapezoids under y along ``axis`` (the spacing from x, dx or 1)
    and that axis."""
    if not is_tensor(y) or dtype_name_of(y) not in ("float32", "float64"):
        raise TypeError(f"{fn}: y must be a float32 or float64 Tensor, got "
                        f"{arguments.kind_of(y)}")
    if x is not None and dx is not None:
        raise ValueError(f"{fn}: give x or dx, not both")
    rank = len(y.shape)
    axis = arguments.axis(fn, axis, rank)
    n = y.shape[axis]

    def cut(t, start, end, ax):
        return _C_ops.slice(t, axes=[ax], starts=[start], ends=[end])

    mean = _C_ops.scale(_C_ops.elementwise_add(cut(y, 1, n, axis),
                                                 cut(y, 0, max(n - 1, 0), axis)), scale=0.5)
    if x is None:
        return _C_ops.scale(mean, scale=1.0 if dx is None else float(dx)), axis
    if len(x.shape) == 1:
        if x.shape[0] != n:
            raise ValueError(f"{fn}: 1-D x must have y's {n} entries along axis {axis}, got "
                             f"{x.shape[0]}")
        step = diff(x)
        view = [1] * rank
        view[axis] = max(n - 1, 0)
        step = _C_ops.reshape(step, shape=view)
    else:
        if list(x.shape) != list(y.shape):
            raise ValueError(f"{fn}: x must be 1-D or have y's shape {list(y.shape)}, got "
                             f"{list(x.shape)}")
        step = diff(x, axis=axis)
    return _C_ops.elementwise_mul(mean, step), axis


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of y along ``axis`` by the trapezoid rule, with sample points x (1-D
    or y's shape) or spacing dx (1 by default)."""
    areas, axis = _trapezoids("trapezoid", y, x, dx, axis)
    return _C_ops.reduce_sum(areas, dim=[axis], keep_dim=False, reduce_all=False)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoid-rule integrals of y along ``axis`` (one entry fewer than y
    along it)."""
    areas, axis = _trapezoids("cumulative_trapezoid", y, x, dx, axis)
    if areas.shape[axis] == 0:
        return areas
    return _C_ops.cumsum(areas, axis=axis)
