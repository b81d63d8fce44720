"""torch-style tensor functions of paddle.compat: the names a PyTorch user calls, with
PyTorch's signatures and results (sort, max/min and median with dim return (values,
indices) named tuples; split takes a chunk size), composed from skiff's tensor ops."""
import collections
import random as _random

from ..framework import arguments
from ..framework.random import seed as _seed
from .. import tensor as T

__all__ = ["sort", "max", "min", "median", "nanmedian", "split", "equal", "seed",
           "SortRetType", "MinMaxRetType", "MedianRetType"]

SortRetType = collections.namedtuple("SortRetType", ["values", "indices"])
MinMaxRetType = collections.namedtuple("MinMaxRetType", ["values", "indices"])
MedianRetType = collections.namedtuple("MedianRetType", ["values", "indices"])

_builtin_min = min


def _written(result, out):
    """``result`` (a Tensor or a tuple of them), copied into ``out`` when it is given."""
    if out is None:
        return result
    if isinstance(result, tuple):
        if not isinstance(out, (list, tuple)) or len(out) != len(result):
            raise arguments.ArgumentTypeError(f"out must be a tuple of {len(result)} Tensors")
        for r, o in zip(result, out):
            T.assign(r, o)
        return type(result)(*out)
    return T.assign(result, out)


def sort(input, dim=-1, descending=False, stable=False, out=None):
    """(values, indices) of input sorted along ``dim`` (equal entries keep their order)."""
    arguments.tensor("sort", "input", input)
    values = T.sort(input, dim, descending)
    indices = T.argsort(input, dim, descending)
    return _written(SortRetType(values, indices), out)


def _extreme(fn, reduce, arg, pairwise, input, args, kwargs, out):
    """torch.max / torch.min: of all of input; (values, indices) along a dim; or the
    elementwise extreme with another Tensor."""
    arguments.tensor(fn, "input", input)
    other = kwargs.pop("other", None)
    dim = kwargs.pop("dim", None)
    keepdim = kwargs.pop("keepdim", False)
    if kwargs:
        raise arguments.ArgumentTypeError(f"{fn}: unexpected arguments {sorted(kwargs)}")
    if args and arguments.is_tensor(args[0]):
        other, args = args[0], args[1:]
    if args:
        dim, args = args[0], args[1:]
    if args:
        keepdim, args = args[0], args[1:]
    if args:
        raise arguments.ArgumentTypeError(f"{fn}: too many arguments")
    if other is not None:
        if dim is not None:
            raise arguments.ArgumentError(f"{fn}: give either another Tensor or a dim")
        return _written(pairwise(input, other), out)
    if dim is None:
        return _written(reduce(input), out)
    dim = arguments.axis(fn, dim, len(input.shape), "dim", scalar=True)
    keepdim = arguments.flag(fn, "keepdim", keepdim)
    return _written(MinMaxRetType(reduce(input, dim, keepdim), arg(input, dim, keepdim)), out)


def max(input, *args, out=None, **kwargs):
    """max(input): the largest entry; max(input, dim, keepdim=False): (values, indices,
    the first largest's) along dim; max(input, other): the elementwise maximum."""
    return _extreme("max", T.max, T.argmax, T.maximum, input, args, kwargs, out)


def min(input, *args, out=None, **kwargs):
    """min(input): the smallest entry; min(input, dim, keepdim=False): (values, indices,
    the first smallest's) along dim; min(input, other): the elementwise minimum."""
    return _extreme("min", T.min, T.argmin, T.minimum, input, args, kwargs, out)


def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median of all of input (NaN if it holds one); with ``dim``, (values,
    indices) along it."""
    arguments.tensor("median", "input", input)
    if dim is None:
        return _written(T.median(input, mode="min"), out)
    return _written(MedianRetType(*T.median(input, dim, keepdim, mode="min")), out)


def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """As median, ignoring NaN (NaN only where every value is NaN)."""
    arguments.tensor("nanmedian", "input", input)
    if dim is None:
        return _written(T.nanmedian(input, mode="min"), out)
    dim = arguments.axis("nanmedian", dim, len(input.shape), "dim", scalar=True)
    return _written(MedianRetType(*T.nanmedian(input, dim, keepdim, mode="min")), out)


def split(tensor, split_size_or_sections, dim=0):
    """tensor split along ``dim`` into chunks of split_size_or_sections entries (an int:
    the last chunk may be shorter) or of the listed sizes (which must add up to the dim)."""
    arguments.tensor("split", "tensor", tensor)
    dim = arguments.axis("split", dim, len(tensor.shape), "dim", scalar=True)
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = arguments.counts("split", "split_size_or_sections", split_size_or_sections)
        if sum(sizes) != n:
            raise arguments.ArgumentError(f"split: the sections {sizes} must add up to the "
                                          f"size of dim {dim}, {n}")
    else:
        size = arguments.count("split", "split_size_or_sections", split_size_or_sections, 1)
        sizes = [_builtin_min(size, n - start) for start in range(0, n, size)] or [0]
    return tuple(T.split(tensor, sizes, dim))


def equal(input, other):
    """True when input and other have the same shape and the same values (a Python bool)."""
    arguments.tensor("equal", "input", input)
    arguments.tensor("equal", "other", other)
    if list(input.shape) != list(other.shape):
        return False
    return bool(T.equal_all(input, other).item())


def seed():
    """Seeds the generator from a fresh random number and returns that seed."""
    value = _random.SystemRandom().randrange(2 ** 63)
    _seed(value)
    return value
