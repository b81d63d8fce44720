"""Statistics over tensors (Paddle's paddle.tensor.stat and linalg): mean, var, std, numel,
median, and the counts bincount, histogram and histogram_bin_edges."""
from .. import _C
from .. import _C_ops
from ..framework import arguments, dtype as dt
from ..framework.tensor_params import FLOATING, accepts, self_checked
from ..framework.mode import mode as _mode
from .math import multiply, square, subtract
from .reduction import _axes, _reduce, sum
from .scalars import constant, dtype_name_of, is_tensor
from .manipulation import flatten
from .search import _full_sort, argmax
from .manipulation import take_along_axis
from .reduction import any as _any
from .creation import arange

__all__ = ["mean", "var", "std", "numel", "median", "bincount", "histogram",
           "histogram_bin_edges"]


@self_checked  # by _reduce
def mean(x, axis=None, keepdim=False, name=None, *, dtype=None):
    """The mean over ``axis`` (all dims when None), of x cast to ``dtype`` when given."""
    if dtype is not None:
        x = _C_ops.cast(arguments.tensor("mean", "x", x), out_dtype=arguments.dtype("mean", dtype))
    return _reduce("reduce_mean", x, axis, keepdim, "mean")


def _count(x, axis, fn):
    """The number of elements reduced over ``axis``: an int when the dims are known, else
    a tensor."""
    shape = list(x.shape)
    dims, reduce_all = _axes(fn, x, axis)
    picked = range(len(shape)) if reduce_all else [d % len(shape) for d in dims]
    n = 1
    for d in picked:
        if shape[d] < 0:
            ones = _C_ops.fill_any_like(x, value=1.0)
            return sum(ones, axis, keepdim=True)
        n *= shape[d]
    return n


@accepts(x=FLOATING)
def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The variance over ``axis`` (divided by n - 1 when unbiased)."""
    return _variance(x, axis, unbiased, keepdim, "var")


def _variance(x, axis, unbiased, keepdim, fn):
    """var(x, axis, unbiased, keepdim) for the public function ``fn`` (named in errors)."""
    n = _count(x, axis, fn)
    centred = subtract(x, mean(x, axis, keepdim=True))
    total = sum(square(centred), axis, keepdim=keepdim)
    if isinstance(n, int):
        d = n - 1 if unbiased else n
        return multiply(total, 1.0 / d if d > 0 else float("nan"))
    if unbiased:
        n = subtract(n, 1.0)
    if not keepdim:
        n = _C_ops.reshape(n, shape=list(total.shape)) if total.shape else \
            _C_ops.reshape(n, shape=[])
    return _C_ops.elementwise_div(total, n)


@accepts(x=FLOATING)
def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The standard deviation over ``axis`` (from the variance divided by n - 1 when
    unbiased)."""
    return _C_ops.sqrt(_variance(x, axis, unbiased, keepdim, "std"))


def numel(x, name=None):
    """The number of elements of x, as a 0-d int64 tensor."""
    ones = _C_ops.fill_any_like(x, value=1.0, dtype="int64")
    return _C_ops.reduce_sum(ones, dim=[], keep_dim=False, reduce_all=True)


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median over ``axis`` (of all of x when None); NaN where the reduced values hold a
    NaN. mode "avg": the mean of the two middle values for an even count, as float32 for
    non-float64 input; "min": the lower one in x's dtype, and, when an axis is given, also
    its index along the axis (the first NaN's where there is one), as a pair (as Paddle)."""
    if mode not in ("avg", "min"):
        raise arguments.ArgumentError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    arguments.tensor("median", "x", x)
    rank, whole = len(x.shape), axis is None
    if whole:
        x, axis = flatten(x), 0
    else:
        axis = arguments.axis("median", axis, rank, scalar=True)
    if mode == "avg" and dtype_name_of(x) not in ("float32", "float64"):
        x = _C_ops.cast(x, out_dtype="float32")
    n = x.shape[axis]
    if mode == "min" and n == 0:
        raise arguments.ArgumentError("median: mode='min' needs at least one value along the "
                                      "axis (the lower middle value of none is undefined)")
    ordered, order = _full_sort(x, axis, False, "median")  # NaN last
    lo, hi = (n - 1) // 2, (n // 2 if mode == "avg" else (n - 1) // 2)
    value, idx = (_C_ops.slice(t, axes=[axis], starts=[lo], ends=[hi + 1])
                  for t in (ordered, order))
    if mode == "avg":  # (the mean of none: NaN, as numpy's)
        value = _C_ops.reduce_mean(value, dim=[axis], keep_dim=True, reduce_all=False)
    if dtype_name_of(x) in ("float16", "bfloat16", "float32", "float64") and \
            0 not in x.shape:
        # where a NaN is reduced: the first NaN (its gradient goes there, as Paddle's)
        nan = _C_ops.isnan(x)
        has_nan = _any(nan, axis, keepdim=True)
        first = argmax(_C_ops.cast(nan, out_dtype="int32"), axis, keepdim=True)
        value = _C_ops.where(has_nan, take_along_axis(x, first, axis), value)
        if mode == "min":
            idx = _C_ops.where(has_nan, first, idx)
    if whole:
        shape = [1] * rank if keepdim else []
        return _C_ops.reshape(value, shape=shape)
    if not keepdim:
        value, idx = (_C_ops.squeeze(t, axes=[axis]) for t in (value, idx))
    return value if mode == "avg" else (value, idx)


def _scatter_sum(size, pos, vals):
    """A [size] tensor holding, at each position, the sum of the vals sent there."""
    zeros = _C_ops.fill_constant(shape=[size], value=0.0, dtype=dtype_name_of(vals))
    return _C_ops.scatter(zeros, pos, vals, overwrite=False)


def bincount(x, weights=None, minlength=0, name=None):
    """out[i] = the number of times i occurs in the 1-D non-negative integer x (or the
    sum of the weights at those places); length max(max(x) + 1, minlength). Counts are
    int64; int weights sum as float64, float ones in their dtype (as Paddle)."""
    if not is_tensor(x) or dtype_name_of(x) not in ("int32", "int64"):
        raise TypeError("bincount: x must be an int32 or int64 tensor")
    if len(x.shape) != 1:
        raise ValueError(f"bincount: x must be 1-D, got {list(x.shape)}")
    if int(minlength) < 0:
        raise ValueError(f"bincount: minlength must be >= 0, got {minlength}")
    if _mode.static:
        raise _C.Error("bincount: the length of the result depends on x's values, which a "
                       "program does not know while it is built; run it eagerly")
    length = int(minlength)
    if x.shape[0]:
        low = int(_C_ops.reduce_min(x, reduce_all=True).item())
        if low < 0:
            raise ValueError(f"bincount: x must hold non-negative ints, got {low}")
        length = max(length, int(_C_ops.reduce_max(x, reduce_all=True).item()) + 1)
    if weights is None:
        vals = _C_ops.fill_any_like(x, value=1.0, dtype="int64")
    else:
        if list(weights.shape) != list(x.shape):
            raise ValueError(f"bincount: weights must have x's shape {list(x.shape)}, got "
                             f"{list(weights.shape)}")
        vals = weights if dtype_name_of(weights) in ("float32", "float64") else \
            _C_ops.cast(weights, out_dtype="float64")
    if length == 0:
        return _C_ops.fill_constant(shape=[0], value=0.0, dtype=dtype_name_of(vals))
    return _scatter_sum(length, x, vals)


def _range_of(input, lo, hi, fn):
    """The histogram range [lo, hi] as 0-d tensors of input's float dtype: the given
    bounds, or input's extremes when they are equal."""
    if float(hi) < float(lo):
        raise ValueError(f"{fn}: max must be >= min, got min={lo} and max={hi}")
    name = dtype_name_of(input)
    if float(lo) != float(hi):
        return constant(float(lo), name), constant(float(hi), name)
    return (_C_ops.reduce_min(input, reduce_all=True),
            _C_ops.reduce_max(input, reduce_all=True))


def _floating(input, fn):
    if not is_tensor(input) or dtype_name_of(input) not in ("float32", "float64", "int32",
                                                            "int64"):
        raise TypeError(f"{fn}: input must be a float32, float64, int32 or int64 tensor")
    if int(input.shape[0] if input.shape else 1) == 0:
        raise ValueError(f"{fn}: input is empty")
    flat = _C_ops.reshape(input, shape=[-1])
    if dtype_name_of(flat) in ("int32", "int64"):
        flat = _C_ops.cast(flat, out_dtype="float64")
    return flat


def _widened(lo, hi, by):
    """(lo - by, hi + by) where lo == hi, else (lo, hi)."""
    same = _C_ops.equal(lo, hi)
    return (_C_ops.where(same, _C_ops.scale(lo, scale=1.0, bias=-by), lo),
            _C_ops.where(same, _C_ops.scale(hi, scale=1.0, bias=by), hi))


def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False, name=None):
    """Counts of input's entries in ``bins`` equal bins over [min, max] (input's extremes
    when min == max; entries outside are left out): int64, the weight's dtype with a
    weight, float32 densities with density (the weight's dtype with both)."""
    if int(bins) < 1:
        raise ValueError(f"histogram: bins must be >= 1, got {bins}")
    bins = int(bins)
    flat = _floating(input, "histogram")
    lo, hi = _widened(*_range_of(flat, min, max, "histogram"), 1.0)
    # bin = floor((x - min) * bins / (max - min)), with x == max in the last bin
    scaled = _C_ops.elementwise_div(_C_ops.scale(_C_ops.elementwise_sub(flat, lo),
                                                   scale=float(bins)),
                                    _C_ops.elementwise_sub(hi, lo))
    bin_ = _C_ops.clip(_C_ops.floor(scaled), min=0.0, max=float(bins - 1))
    inside = _C_ops.logical_and(_C_ops.greater_equal(flat, lo), _C_ops.less_equal(flat, hi))
    # entries outside the range go to an extra bin, dropped at the end
    pos = _C_ops.cast(_C_ops.where(inside, bin_, constant(float(bins), dtype_name_of(
        flat))),out_dtype="int64")
    if weight is None:
        vals = _C_ops.fill_any_like(flat, value=1.0, dtype="int64")
    else:
        if list(weight.shape) != list(input.shape):
            raise ValueError(f"histogram: weight must have input's shape "
                             f"{list(input.shape)}, got {list(weight.shape)}")
        vals = _C_ops.reshape(weight, shape=[-1])
    counts = _C_ops.slice(_scatter_sum(bins + 1, pos, vals), axes=[0], starts=[0], ends=[bins])
    if not density:
        return counts
    out = dtype_name_of(vals) if weight is not None else "float32"
    counts = _C_ops.cast(counts, out_dtype=out) if dtype_name_of(counts) != out \
        else counts
    width = _C_ops.cast(_C_ops.scale(_C_ops.elementwise_sub(hi, lo),
                                       scale=1.0 / bins), out_dtype=out)
    total = _C_ops.reduce_sum(counts, reduce_all=True)
    return _C_ops.elementwise_div(counts, _C_ops.elementwise_mul(total, width))


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """The bins + 1 float32 edges of histogram's bins: evenly spaced over [min, max]
    (input's extremes when both are 0; widened by 0.5 each way when they are equal)."""
    if int(bins) < 1:
        raise ValueError(f"histogram_bin_edges: bins must be >= 1, got {bins}")
    bins = int(bins)
    flat = _floating(input, "histogram_bin_edges")
    if float(min) == 0.0 and float(max) == 0.0:
        lo, hi = _range_of(flat, 0.0, 0.0, "histogram_bin_edges")
    else:
        if float(max) < float(min):
            raise ValueError(f"histogram_bin_edges: max must be >= min, got min={min} and "
                             f"max={max}")
        lo, hi = constant(float(min), "float64"), constant(float(max), "float64")
    lo, hi = [_C_ops.cast(t, out_dtype="float64") for t in (lo, hi)]
    lo, hi = _widened(lo, hi, 0.5)
    steps = _C_ops.scale(arange(0, bins + 1, 1, "float64"), scale=1.0 / bins)
    edges = _C_ops.elementwise_add(lo, _C_ops.elementwise_mul(
        steps, _C_ops.elementwise_sub(hi, lo)))
    return _C_ops.cast(edges, out_dtype=dt.get_default_dtype())
