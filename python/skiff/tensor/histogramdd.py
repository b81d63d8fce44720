"""histogramdd (Paddle's paddle.histogramdd, torch.histogramdd): the histogram of N-dim
points (the rows of x's last dim) over a grid of bins, built on a scatter-sum into the
flattened grid. Each dim's bins are half-open [edge_i, edge_i+1) but the last, which
holds its right edge too; points outside the grid (or with a NaN) are left out."""
from .. import _C_ops
from ..framework import arguments
from .creation import arange
from .scalars import constant, dtype_name_of, is_tensor
from .search import searchsorted
from .stat import _scatter_sum

__all__ = ["histogramdd"]

_FN = "histogramdd"


def _bin_spec(bins, n):
    """bins as a list of n ints (counts of equal bins) or of n 1-D edge tensors."""
    if isinstance(bins, int) and not isinstance(bins, bool):
        bins = [bins] * n
    if not isinstance(bins, (list, tuple)):
        raise arguments.ArgumentTypeError(f"{_FN}: bins must be an int, a list of ints or a "
                                          f"list of 1-D Tensors, got {type(bins).__name__}")
    if len(bins) != n:
        raise arguments.ArgumentError(f"{_FN}: bins must have one entry per dim of the "
                                      f"points ({n}), got {len(bins)}")
    if all(is_tensor(b) for b in bins):
        for i, b in enumerate(bins):
            if len(b.shape) != 1 or b.shape[0] < 1:
                raise arguments.ArgumentError(f"{_FN}: bins[{i}] must be a non-empty 1-D "
                                              f"Tensor of edges, got shape {list(b.shape)}")
        return list(bins)
    return [arguments.count(_FN, f"bins[{i}]", b, low=1) for i, b in enumerate(bins)]


def _ranges(ranges, points, n):
    """[(lo, hi)] per dim, as 0-d tensors of the points' dtype: the given ones, or the
    points' extremes."""
    name = dtype_name_of(points)
    if ranges is None:
        if points.shape[0] == 0:
            return [(constant(0.0, name), constant(0.0, name))] * n
        lows = _C_ops.reduce_min(points, dim=[0], keep_dim=False, reduce_all=False)
        highs = _C_ops.reduce_max(points, dim=[0], keep_dim=False, reduce_all=False)
        return [tuple(_C_ops.slice(t, axes=[0], starts=[d], ends=[d + 1], decrease_axis=[0])
                      for t in (lows, highs)) for d in range(n)]
    values = list(ranges) if isinstance(ranges, (list, tuple)) else None
    if values is None or len(values) != 2 * n:
        raise arguments.ArgumentError(f"{_FN}: ranges must be a list of 2 * {n} numbers "
                                      f"(the leftmost and rightmost edge of each dim), got "
                                      f"{ranges!r}")
    values = [arguments.number(_FN, f"ranges[{i}]", v) for i, v in enumerate(values)]
    out = []
    for d in range(n):
        lo, hi = float(values[2 * d]), float(values[2 * d + 1])
        if lo > hi:
            raise arguments.ArgumentError(f"{_FN}: ranges for dim {d} must have min <= max, "
                                          f"got [{lo}, {hi}]")
        out.append((constant(lo, name), constant(hi, name)))
    return out


def _even_edges(lo, hi, count, name):
    """count + 1 edges evenly spaced over [lo, hi] (widened by 0.5 each way when lo == hi),
    in dtype ``name``: the first half stepped up from lo, the second down from hi."""
    same = _C_ops.equal(lo, hi)
    lo = _C_ops.where(same, _C_ops.scale(lo, scale=1.0, bias=-0.5), lo)
    hi = _C_ops.where(same, _C_ops.scale(hi, scale=1.0, bias=0.5), hi)
    step = _C_ops.scale(_C_ops.elementwise_sub(hi, lo), scale=1.0 / count)
    i = arange(0, count + 1, 1, name)
    up = _C_ops.elementwise_add(lo, _C_ops.elementwise_mul(i, step))
    down = _C_ops.elementwise_sub(hi, _C_ops.elementwise_mul(
        _C_ops.scale(i, scale=-1.0, bias=float(count)), step))
    return _C_ops.where(_C_ops.less_than(i, constant(count / 2, name)), up, down)


def _bin_of(column, edges):
    """(the bin of each value along one dim, whether it lies in the edges' range)."""
    count = edges.shape[0] - 1
    first = _C_ops.slice(edges, axes=[0], starts=[0], ends=[1], decrease_axis=[0])
    last = _C_ops.slice(edges, axes=[0], starts=[count], ends=[count + 1], decrease_axis=[0])
    inside = _C_ops.logical_and(_C_ops.greater_equal(column, first),
                                _C_ops.less_equal(column, last))
    position = _C_ops.scale(searchsorted(edges, column, right=True), scale=1.0, bias=-1.0)
    # the right edge belongs to the last bin
    return _C_ops.clip(position, min=0.0, max=float(max(count - 1, 0))), inside


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """(hist, edges): the count (or the sum of ``weights``) of the points of x (its last
    dim, the others flattened) in each cell of the grid of bins, and the N 1-D tensors of
    each dim's edges. ``bins``: an int, N ints (equal bins over ``ranges``: 2N numbers,
    the points' extremes when None) or N edge tensors; with ``density`` each cell's value
    is divided by the total and by the cell's volume."""
    arguments.tensor(_FN, "x", x)
    if len(x.shape) < 2:
        raise arguments.ArgumentError(f"{_FN}: x must have at least 2 dims (points along the "
                                      f"last), got shape {list(x.shape)}")
    dtype = dtype_name_of(x)
    if dtype not in ("float32", "float64"):
        raise arguments.ArgumentTypeError(f"{_FN}: x must be a float32 or float64 Tensor, got "
                                          f"{dtype}")
    n = x.shape[-1]
    points = _C_ops.reshape(x, shape=[-1, n])
    spec = _bin_spec(bins, n)
    if is_tensor(spec[0]):
        if ranges is not None:
            raise arguments.ArgumentError(f"{_FN}: ranges can not be given with bin edges")
        edges = [e if dtype_name_of(e) == dtype else _C_ops.cast(e, out_dtype=dtype)
                 for e in spec]
    else:
        edges = [_even_edges(lo, hi, c, dtype)
                 for (lo, hi), c in zip(_ranges(ranges, points, n), spec)]
    counts = [e.shape[0] - 1 for e in edges]
    cells = 1
    for c in counts:
        cells *= c
    flat = _C_ops.fill_any_like(_C_ops.slice(points, axes=[1], starts=[0], ends=[1],
                                             decrease_axis=[1]), value=0.0, dtype="int64")
    inside = _C_ops.fill_any_like(flat, value=1.0, dtype="bool")
    for d, e in enumerate(edges):
        column = _C_ops.slice(points, axes=[1], starts=[d], ends=[d + 1], decrease_axis=[1])
        position, within = _bin_of(column, e)
        flat = _C_ops.elementwise_add(_C_ops.scale(flat, scale=float(counts[d])), position)
        inside = _C_ops.logical_and(inside, within)
    # points outside the grid go to an extra cell, dropped at the end
    flat = _C_ops.where(inside, flat, _C_ops.fill_any_like(flat, value=float(cells)))
    if weights is None:
        values = _C_ops.fill_any_like(flat, value=1.0, dtype=dtype)
    else:
        arguments.tensor(_FN, "weights", weights)
        if list(weights.shape) != list(x.shape[:-1]):
            raise arguments.ArgumentError(f"{_FN}: weights must have x's shape less its last "
                                          f"dim, {list(x.shape[:-1])}, got "
                                          f"{list(weights.shape)}")
        values = _C_ops.reshape(weights, shape=[-1])
        if dtype_name_of(values) != dtype:
            values = _C_ops.cast(values, out_dtype=dtype)
    hist = _C_ops.slice(_scatter_sum(cells + 1, flat, values), axes=[0], starts=[0],
                        ends=[cells])
    if density:
        hist = _C_ops.elementwise_div(hist, _C_ops.reduce_sum(hist, reduce_all=True))
        hist = _C_ops.elementwise_div(_C_ops.reshape(hist, shape=counts), _volumes(edges))
    return _C_ops.reshape(hist, shape=counts), edges


def _volumes(edges):
    """The volume of each cell of the grid: the outer product of the bins' widths."""
    volume = None
    for d, e in enumerate(edges):
        count = e.shape[0] - 1
        width = _C_ops.elementwise_sub(_C_ops.slice(e, axes=[0], starts=[1], ends=[count + 1]),
                                       _C_ops.slice(e, axes=[0], starts=[0], ends=[count]))
        shape = [1] * len(edges)
        shape[d] = count
        width = _C_ops.reshape(width, shape=shape)
        volume = width if volume is None else _C_ops.elementwise_mul(volume, width)
    return volume
