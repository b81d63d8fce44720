"""Running and order statistics (Paddle's cumprod, logcumsumexp, cummax, cummin, unique,
unique_consecutive, nanmedian, quantile, nanquantile): the running ops and distinct
values are skiff ops; quantiles are composed from sort and take_along_axis."""
from .. import _C_ops
import numbers

from ..framework import arguments, dtype as dt
from ..framework.mode import mode as _mode
from ..framework.core import apply
from .logic import logical_not
from .manipulation import flatten, reshape, stack, take_along_axis, transpose
from .math import cast, isnan
from .reduction import sum
from .scalars import constant, dtype_name_of, is_float, is_tensor
from .search import _full_sort

__all__ = ["cumprod", "cumprod_", "logcumsumexp", "cummax", "cummin", "unique",
           "unique_consecutive", "nanmedian", "quantile", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _tensor(x, fn):
    arguments.tensor(fn, "x", x)


def _scan_input(x, axis, fn, param="axis"):
    """x flattened with axis 0 when ``axis`` is None, else x and the checked axis."""
    _tensor(x, fn)
    if axis is None:
        return flatten(x), 0
    return x, arguments.axis(fn, axis, len(x.shape), param, scalar=True)


def _index_dtype(dtype, fn):
    name = dt.dtype_name(dtype)
    if name not in ("int32", "int64"):
        raise ValueError(f"{fn}: dtype must be int32 or int64, got {name}")
    return name


def cumprod(x, dim=None, *, dtype=None, out=None, name=None):
    """Running products along ``dim`` (of the flattened x when None), x first cast to
    ``dtype`` when given."""
    if dtype is not None:
        x = cast(x, dtype)
    x, axis = _scan_input(x, dim, "cumprod", "dim")
    return _C_ops.cumprod(x, axis=axis, out=None if out is None else [out])


def cumprod_(x, dim=None, dtype=None, name=None):
    """cumprod written into x (flattened first when ``dim`` is None)."""
    source = x if dtype is None else cast(x, dtype)
    source, axis = _scan_input(source, dim, "cumprod_", "dim")
    return _C_ops.cumprod(source, axis=axis, out=[x])


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along ``axis`` (of the flattened x when None), computed without
    overflow; integer x is taken as float32."""
    _tensor(x, "logcumsumexp")
    if dtype is not None:
        x = cast(x, dtype)
    elif not is_float(x):
        x = cast(x, "float32")
    x, axis = _scan_input(x, axis, "logcumsumexp")
    return _C_ops.logcumsumexp(x, axis=axis)


def _cum_extreme(op, x, axis, dtype):
    index_dtype = _index_dtype(dtype, op)
    x, axis = _scan_input(x, axis, op)
    values, indices = apply(op, x, attrs={"axis": axis})
    return values, indices if index_dtype == "int64" else cast(indices, index_dtype)


def cummax(x, axis=None, dtype="int64", name=None):
    """(values, indices): the running maximum along ``axis`` (of the flattened x when None)
    and where it sits (the last position on ties)."""
    return _cum_extreme("cummax", x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    """(values, indices): the running minimum along ``axis`` (of the flattened x when None)
    and where it sits (the last position on ties)."""
    return _cum_extreme("cummin", x, axis, dtype)


def _distinct(op, x, wanted, axis, dtype):
    """Runs unique / unique_consecutive computing only the ``wanted`` optional outputs;
    returns Out alone or a tuple of Out and those outputs."""
    _tensor(x, op)
    axes = [] if axis is None else [arguments.axis(op, axis, len(x.shape), scalar=True)]
    attrs = {"axis": axes, "dtype": _index_dtype(dtype, op)}
    outs = apply(op, x, attrs=attrs, output_counts=[1] + [int(bool(w)) for w in wanted])
    picked = [o for o, w in zip(outs[1:], wanted) if w]
    return outs[0] if not picked else tuple([outs[0]] + picked)


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", sorted=True, name=None):
    """The sorted distinct elements of x (flattened when ``axis`` is None, else distinct
    slices along it), with first positions, the inverse map and counts when asked; the
    output is sorted whatever ``sorted`` says (as Paddle's CPU kernel)."""
    return _distinct("unique", x, (return_index, return_inverse, return_counts), axis, dtype)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """x (flattened when ``axis`` is None) with each run of equal neighbours kept once,
    with the inverse map and run lengths when asked."""
    return _distinct("unique_consecutive", x, (return_inverse, return_counts), axis, dtype)


def _rows(x, axis, fn):
    """x with the ``axis`` dims (all when None) moved last and merged: returns the rows,
    the kept rank and x's shape with the reduced dims set to 1."""
    rank = len(x.shape)
    if rank == 0:
        return reshape(x, [1]), 0, []
    axes = list(range(rank)) if axis is None else arguments.axes(fn, axis, rank)
    keep_shape = [1 if d in axes else n for d, n in enumerate(x.shape)]
    kept = [d for d in range(rank) if d not in axes]
    perm = kept + sorted(axes)
    if perm != list(range(rank)):
        x = transpose(x, perm)
    if len(axes) != 1:
        x = reshape(x, [0] * len(kept) + [-1])
    return x, len(kept), keep_shape


def _q_values(q, dtype, fn):
    """q as a 1-D tensor of ``dtype`` and whether the result drops the q dim."""
    if is_tensor(q):
        if len(q.shape) > 1:
            raise ValueError(f"{fn}: q must be a 0-D or 1-D tensor, got shape {list(q.shape)}")
        if not _mode.static:
            values = q.numpy()
            if not ((values >= 0) & (values <= 1)).all():
                raise ValueError(f"{fn}: q should be in range [0, 1]")
        scalar = len(q.shape) == 0
        q = cast(q, dtype)
        return (reshape(q, [1]) if scalar else q), scalar
    scalar = isinstance(q, numbers.Real)
    values = [q] if scalar else list(q) if isinstance(q, (list, tuple)) else None
    if values is None:
        raise TypeError(f"{fn}: q must be a float, a list of floats or a Tensor, got "
                        f"{type(q).__name__}")
    if not values:
        raise ValueError(f"{fn}: q should not be empty")
    for v in values:
        if not isinstance(v, numbers.Real) or not 0 <= v <= 1:
            raise ValueError(f"{fn}: q should be in range [0, 1], got {v!r}")
    return stack([constant(float(v), dtype) for v in values]), scalar


def _order_statistic(x, q, axis, keepdim, interpolation, ignore_nan, fn, with_index=False):
    """The q-quantiles of x over ``axis`` from its sorted rows (NaN sorts last): positions
    q * (count - 1) interpolated as ``interpolation``; rows holding NaN give NaN unless
    ``ignore_nan`` (then only all-NaN rows do). With ``with_index`` also the position in x
    of the lower element (-1 for an all-NaN row)."""
    _tensor(x, fn)
    if not is_float(x):
        raise TypeError(f"{fn}: x must be float32 or float64, got {dtype_name_of(x)}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{fn}: interpolation must be one of {', '.join(_INTERPOLATIONS)}, "
                         f"got {interpolation!r}")
    name = dtype_name_of(x)
    qs, scalar_q = _q_values(q, name, fn)
    rows, kept, keep_shape = _rows(x, axis, fn)
    ordered, order = _full_sort(rows, -1, False)
    present = logical_not(isnan(rows)) if ignore_nan else \
        _C_ops.fill_any_like(rows, value=1.0, dtype="bool")
    count = sum(cast(present, name), -1, keepdim=True)
    pos = _C_ops.elementwise_max((count - 1.0) * qs, constant(0.0, name))
    lo, hi = _C_ops.floor(pos), _C_ops.ceil(pos)
    pick = {"higher": hi, "nearest": _round_half_even(pos, lo)}.get(interpolation, lo)
    value = take_along_axis(ordered, cast(pick, "int64"), -1)
    if interpolation in ("linear", "midpoint"):
        upper = take_along_axis(ordered, cast(hi, "int64"), -1)
        weight = (pos - lo) if interpolation == "linear" else constant(0.5, name)
        value = value + (upper - value) * weight
    if not ignore_nan:
        n = rows.shape[-1]
        last = _C_ops.slice(ordered, axes=[kept], starts=[n - 1], ends=[n])
        value = _C_ops.where(isnan(last), last, value)
    value = _arrange(value, kept, keep_shape, keepdim, scalar_q)
    if not with_index:
        return value
    index = take_along_axis(order, cast(pick, "int64"), -1)
    none = _C_ops.equal(count, constant(0.0, name))
    index = _C_ops.where(none, _C_ops.fill_any_like(index, value=-1.0), index)
    return value, _arrange(index, kept, keep_shape, keepdim, scalar_q)


def _round_half_even(pos, lo):
    """pos rounded to the nearest integer, halves to the even one (as Paddle's round);
    ``lo`` is floor(pos)."""
    frac = pos - lo
    half = _C_ops.equal(frac, constant(0.5, dtype_name_of(pos)))
    odd = _C_ops.equal(lo % 2.0, constant(1.0, dtype_name_of(pos)))
    up = _C_ops.logical_or(_C_ops.greater_than(frac, constant(0.5, dtype_name_of(pos))),
                           _C_ops.logical_and(half, odd))
    return lo + cast(up, dtype_name_of(pos))


def _arrange(t, kept, keep_shape, keepdim, scalar_q):
    """[..kept.., Q] -> Paddle's layout: [Q] first (dropped for a scalar q), then the kept
    dims, or x's shape with the reduced dims as 1 when keepdim."""
    if scalar_q:
        t = reshape(t, [0] * kept)
        return reshape(t, keep_shape) if keepdim else t
    t = transpose(t, [kept] + list(range(kept)))
    return reshape(t, [0] + keep_shape) if keepdim else t


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-quantiles (q a float, a list or a 0-D/1-D tensor in [0, 1]) over ``axis``
    (all of x when None; an int or a list), NaN where a row holds NaN; a list of q puts
    its dim first."""
    return _order_statistic(x, q, axis, keepdim, interpolation, False, "quantile")


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """As quantile, over the non-NaN elements (NaN for a row of only NaN)."""
    return _order_statistic(x, q, axis, keepdim, interpolation, True, "nanquantile")


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median over ``axis`` ignoring NaN: the mean of the two middle values (mode
    'avg') or the lower one (mode 'min', which with an int axis also returns its index)."""
    if mode not in ("avg", "min"):
        raise ValueError(f"nanmedian: mode must be 'avg' or 'min', got {mode!r}")
    _tensor(x, "nanmedian")
    source = x if is_float(x) else cast(x, "float64")
    with_index = mode == "min" and isinstance(axis, numbers.Integral)
    result = _order_statistic(source, 0.5, axis, keepdim, "midpoint" if mode == "avg" else
                              "lower", True, "nanmedian", with_index)
    if is_float(x):
        return result
    if with_index:
        return cast(result[0], dtype_name_of(x)), result[1]
    return cast(result, dtype_name_of(x))
