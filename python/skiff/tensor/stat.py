"""Statistics over tensors (Paddle's paddle.tensor.stat): mean, var, std, numel."""
from ..framework.core import apply
from .math import multiply, square, subtract
from .reduction import _axes, _reduce, sum
from .scalars import dtype_name_of

__all__ = ["mean", "var", "std", "numel", "median"]


def mean(x, axis=None, keepdim=False, name=None):
    """The mean over ``axis`` (all dims when None)."""
    return _reduce("reduce_mean", x, axis, keepdim)


def _count(x, axis):
    """The number of elements reduced over ``axis``: an int when the dims are known, else
    a tensor."""
    shape = list(x.shape)
    dims, reduce_all = _axes(axis)
    picked = range(len(shape)) if reduce_all else [d % len(shape) for d in dims]
    n = 1
    for d in picked:
        if shape[d] < 0:
            ones = apply("fill_any_like", x, attrs={"value": 1.0})
            return sum(ones, axis, keepdim=True)
        n *= shape[d]
    return n


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The variance over ``axis`` (divided by n - 1 when unbiased)."""
    centred = subtract(x, mean(x, axis, keepdim=True))
    total = sum(square(centred), axis, keepdim=keepdim)
    n = _count(x, axis)
    if isinstance(n, int):
        d = n - 1 if unbiased else n
        return multiply(total, 1.0 / d if d > 0 else float("nan"))
    if unbiased:
        n = subtract(n, 1.0)
    if not keepdim:
        n = apply("reshape", n, attrs={"shape": list(total.shape)}) if total.shape else \
            apply("reshape", n, attrs={"shape": []})
    return apply("elementwise_div", total, n)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """The standard deviation over ``axis`` (from the variance divided by n - 1 when
    unbiased)."""
    return apply("sqrt", var(x, axis, unbiased, keepdim))


def numel(x, name=None):
    """The number of elements of x, as a 0-d int64 tensor."""
    ones = apply("fill_any_like", x, attrs={"value": 1.0, "dtype": "int64"})
    return apply("reduce_sum", ones, attrs={"dim": [], "keep_dim": False, "reduce_all": True})


def median(x, axis=None, keepdim=False, name=None):
    """The median over ``axis`` (of all of x when None): the mean of the two middle
    values for an even count."""
    from .manipulation import flatten
    from .search import sort
    if axis is None:
        x, axis = flatten(x), 0
        if keepdim:
            raise ValueError("median: keepdim needs an axis")
    axis = int(axis) % len(x.shape)
    n = x.shape[axis]
    if dtype_name_of(x) not in ("float32", "float64"):
        x = apply("cast", x, attrs={"out_dtype": "float32"})
    s = sort(x, axis)
    lo, hi = (n - 1) // 2, n // 2
    mid = apply("slice", s, attrs={"axes": [axis], "starts": [lo], "ends": [hi + 1]})
    return apply("reduce_mean", mid, attrs={"dim": [axis], "keep_dim": bool(keepdim),
                                            "reduce_all": False})
