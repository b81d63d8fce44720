"""Reducing rows into buckets (the core of paddle.geometric's message passing and segment
ops): ``reduce_rows(values, index, n, op)`` gives [n, ...] whose row i reduces the rows
of ``values`` whose ``index`` is i (sum, mean, max or min; 0 for an empty bucket)."""
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of, is_tensor
from ..tensor import (argsort, bincount, cast, clip, cumsum, equal, expand, index_add,
                      reshape, take_along_axis, unsqueeze, where, zeros)

REDUCE_OPS = ("sum", "mean", "max", "min")
_INDEX_DTYPES = ("int32", "int64")
_VALUE_DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64")


def check_index(fn, name, index):
    """``index`` as a 1-D int64 tensor, after checking it is a 1-D int32/int64 Tensor."""
    if not is_tensor(index):
        raise ArgumentTypeError(f"{fn}: {name} must be a Tensor, got {type(index).__name__}")
    if dtype_name_of(index) not in _INDEX_DTYPES:
        raise ArgumentTypeError(f"{fn}: {name} must be int32 or int64, got "
                                f"{dtype_name_of(index)}")
    if len(index.shape) == 2 and index.shape[1] == 1:
        index = reshape(index, [-1])
    if len(index.shape) != 1:
        raise ArgumentError(f"{fn}: {name} must be 1-D, got shape {list(index.shape)}")
    return cast(index, "int64")


def check_values(fn, name, x):
    """Checks that x is a Tensor of at least one dim with a dtype the ops take."""
    if not is_tensor(x):
        raise ArgumentTypeError(f"{fn}: {name} must be a Tensor, got {type(x).__name__}")
    if dtype_name_of(x) not in _VALUE_DTYPES:
        raise ArgumentTypeError(f"{fn}: {name} must be float32, float64, float16, bfloat16, "
                                f"int32 or int64, got {dtype_name_of(x)}")
    if len(x.shape) < 1:
        raise ArgumentError(f"{fn}: {name} must have at least 1 dim, got a 0-d Tensor")


def check_in_range(fn, name, index, size):
    """Raises unless every entry of the int64 ``index`` lies in [0, size)."""
    if index.shape[0] == 0:
        return
    low, high = int(index.min()), int(index.max())
    if low < 0 or high >= size:
        raise ArgumentError(f"{fn}: {name} holds {low if low < 0 else high}, outside "
                            f"[0, {size})")


def _row_view(t, rank):
    """t [E] reshaped to [E, 1, ...] of the given rank, for broadcasting over rows."""
    return reshape(t, [-1] + [1] * (rank - 1))


def reduce_rows(values, index, n, op):
    """[n, *values.shape[1:]]: row i reduces the rows of values whose (int64) index is i."""
    rank = len(values.shape)
    shape = [n] + [int(d) for d in values.shape[1:]]
    counts = bincount(index, minlength=n)[:n]
    if op in ("sum", "mean"):
        out = index_add(zeros(shape, dtype_name_of(values)), index, 0, values)
        if op == "mean":
            denom = cast(clip(counts, min=1), dtype_name_of(values))
            out = out / _row_view(denom, rank)
        return out
    return _reduce_extreme(values, index, counts, shape, op == "max")


def _reduce_extreme(values, index, counts, shape, is_max):
    """The max (or min) per bucket, from one sort of each column by (bucket, value); its
    gradient reaches every row equal to its bucket's extreme (ties each take all of it)."""
    rank = len(values.shape)
    flat = reshape(values, [values.shape[0], -1]) if rank != 2 else values
    cols = flat.shape[1]
    by_value = argsort(flat, axis=0, stable=True)
    bucket = take_along_axis(expand(unsqueeze(index, 1), [index.shape[0], cols]), by_value, 0)
    order = take_along_axis(by_value, argsort(bucket, axis=0, stable=True), 0)
    ranked = take_along_axis(flat.detach(), order, 0)
    ends = cumsum(counts, axis=0)
    pick = ends - 1 if is_max else ends - counts
    pick = clip(pick, min=0, max=max(int(values.shape[0]) - 1, 0))
    n = shape[0]
    if values.shape[0] == 0:
        return zeros(shape, dtype_name_of(values))
    best = take_along_axis(ranked, expand(unsqueeze(pick, 1), [n, cols]), 0)
    empty = unsqueeze(equal(counts, 0), 1)
    best = where(empty, zeros([n, cols], dtype_name_of(values)), best)
    best = reshape(best, shape)
    if values.stop_gradient:
        return best
    hit = cast(equal(values.detach(), take_along_axis(best, _row_view(index, rank).expand(
        [index.shape[0]] + shape[1:]), 0)), dtype_name_of(values))
    moved = index_add(zeros(shape, dtype_name_of(values)), index, 0,
                      hit * (values - values.detach()))
    return best + moved
