"""Searching and sorting (Paddle's paddle.tensor.search): argmax/argmin, topk, sort,
argsort, msort, kthvalue, mode, searchsorted, bucketize, where, multiplex, nonzero,
masked_select."""
import numpy as np

from .. import _C_ops
from ..framework import arguments, dtype as dt
from ..framework.core import apply
from ..framework.tensor_params import TENSOR, TENSORS, VALUE, accepts
from .scalars import as_operands, constant, dtype_name_of, is_tensor
from .manipulation import take_along_axis
from .._C import Error
from .creation import arange

__all__ = ["argmax", "argmin", "topk", "sort", "argsort", "where", "nonzero", "masked_select",
           "msort", "kthvalue", "mode", "searchsorted", "bucketize", "multiplex", "argwhere"]


def _arg_extreme(op, x, axis, keepdim, dtype):
    """argmax / argmin (``op``) of x over ``axis`` (all of x when None)."""
    if axis is None:
        out = apply(op, x, attrs={"flatten": True, "keepdims": False})
        if keepdim:
            out = _C_ops.reshape(out, shape=[1] * len(x.shape))
    else:
        axis = arguments.axis(op, axis, len(x.shape), scalar=True)
        out = apply(op, x, attrs={"axis": axis, "keepdims": bool(keepdim)})
    name = dt.dtype_name(dtype)
    return out if name == "int64" else _C_ops.cast(out, out_dtype=name)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """The index of the first largest element along ``axis`` (of all of x when None)."""
    return _arg_extreme("argmax", x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """The index of the first smallest element along ``axis`` (of all of x when None)."""
    return _arg_extreme("argmin", x, axis, keepdim, dtype)


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """(values, indices) of the k largest (smallest) entries along ``axis`` (the last
    when None)."""
    axis = arguments.axis("topk", -1 if axis is None else axis, len(x.shape), scalar=True)
    n = x.shape[axis] if x.shape else 1
    k = arguments.count("topk", "k", k, 0, n if n >= 0 else None, f"the size of axis {axis}")
    return _C_ops.top_k(x, k=k, axis=axis, largest=bool(largest), sorted=bool(sorted))


def _full_sort(x, axis, descending, fn="sort"):
    """(values, indices) of x sorted along ``axis`` (``fn`` names the caller in errors)."""
    rank = len(x.shape)
    axis = arguments.axis(fn, axis, rank, scalar=True)
    n = x.shape[axis] if rank else 1
    if rank == 0:
        return x, _C_ops.fill_any_like(x, value=0.0, dtype="int64")
    if n < 0:
        raise Error(f"sort: the size of axis {axis} of {list(x.shape)} must be known")
    return _C_ops.top_k(x, k=n, axis=axis, largest=bool(descending), sorted=True)


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """x sorted along ``axis`` (stable: equal entries keep their order; NaN last when
    ascending); differentiable."""
    return _full_sort(x, axis, descending)[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """The indices that sort x along ``axis`` (stable)."""
    return _full_sort(x, axis, descending, "argsort")[1]


@accepts(x=VALUE, y=VALUE)
def where(condition, x=None, y=None, name=None):
    """x where ``condition`` holds, else y (broadcast); with only ``condition``, the
    indices of its nonzero entries as a tuple of 1-D tensors (as nonzero(as_tuple=True))."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if not is_tensor(x) or not is_tensor(y):
        if is_tensor(x) or is_tensor(y):
            x, y = as_operands(x, y)
        else:
            x = constant(x, "float32" if isinstance(x, float) else "int64")
            y = constant(y, dtype_name_of(x))
    if dtype_name_of(condition) != "bool":
        condition = _C_ops.cast(condition, out_dtype="bool")
    return _C_ops.where(condition, x, y)


def nonzero(x, as_tuple=False):
    """The indices of x's nonzero entries: int64 [n, rank], or a tuple of rank 1-D tensors."""
    idx = _C_ops.where_index(x)
    if not as_tuple:
        return idx
    rank = len(x.shape)
    return tuple(_C_ops.slice(idx, axes=[1], starts=[i], ends=[i + 1],
                              decrease_axis=[1]) for i in range(rank))


def argwhere(input):
    """The int64 [n, rank] indices of input's nonzero entries, in row-major order (as
    nonzero(input)); input must have at least 1 dim."""
    arguments.tensor("argwhere", "input", input)
    if not input.shape:
        raise arguments.ArgumentError("argwhere: input must have at least 1 dim, got a 0-d "
                                      "Tensor")
    return nonzero(input)


def masked_select(x, mask, name=None):
    """The entries of x where ``mask`` (broadcast to x) holds, as a 1-D tensor."""
    if list(mask.shape) != list(x.shape):
        mask = _C_ops.expand(mask, shape=list(x.shape))
    return _C_ops.gather_nd(x, nonzero(mask))


def _out(result, out):
    return result if out is None else _C_ops.assign(result, out=[out])


def msort(input, *, out=None):
    """input sorted along its first axis."""
    return _out(_full_sort(input, 0, False, "msort")[0], out)


def _picked(x, idx, axis, keepdim):
    """(x's entries at idx along axis, idx), both without that axis unless keepdim."""
    values = take_along_axis(x, idx, axis)
    if keepdim:
        return values, idx
    return tuple(_C_ops.squeeze(t, axes=[axis]) for t in (values, idx))


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(values, indices) of the k-th smallest entries along ``axis`` (the last when
    None); equal entries rank by position."""
    if not x.shape:
        raise ValueError("kthvalue: x must have at least 1 dim")
    axis = arguments.axis("kthvalue", -1 if axis is None else axis, len(x.shape))
    n = x.shape[axis]
    k = arguments.count("kthvalue", "k", k, 1, n, f"the size of axis {axis}")
    order = _C_ops.top_k(x, k=k, axis=axis, largest=False, sorted=True)[1]
    idx = _C_ops.slice(order, axes=[axis], starts=[k - 1], ends=[k])
    return _picked(x, idx, axis, keepdim)


def mode(x, axis=-1, keepdim=False, name=None):
    """(values, indices): the most frequent entry along ``axis`` (the smallest among
    equally frequent ones) and the position of its last occurrence."""
    if not x.shape:
        raise ValueError("mode: x must have at least 1 dim")
    axis = arguments.axis("mode", axis, len(x.shape))
    rank = len(x.shape)
    n = x.shape[axis]
    a = _C_ops.unsqueeze(x, axes=[axis + 1])
    b = _C_ops.unsqueeze(x, axes=[axis])
    same = _C_ops.cast(_C_ops.equal(a, b), out_dtype="int64")
    counts = _C_ops.reduce_sum(same, dim=[axis + 1], keep_dim=False, reduce_all=False)
    most = _C_ops.equal(counts, _C_ops.reduce_max(counts, dim=[axis], keep_dim=True,
                                                    reduce_all=False))
    top = _C_ops.reduce_max(x, dim=[axis], keep_dim=True, reduce_all=False)
    value = _C_ops.reduce_min(_C_ops.where(most, x, top), dim=[axis], keep_dim=True,
                              reduce_all=False)
    view = [1] * rank
    view[axis] = n
    pos = _C_ops.reshape(arange(0, n, 1, "int64"), shape=view)
    at = _C_ops.where(_C_ops.equal(x, value), pos, constant(-1, "int64"))
    idx = _C_ops.reduce_max(at, dim=[axis], keep_dim=True, reduce_all=False)
    return _picked(x, idx, axis, keepdim)


@accepts(values=TENSOR, sorter=TENSOR)
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, out=None, sorter=None):
    """For each of ``values``, the index where it would go in ``sorted_sequence`` (sorted
    along its last dim; leading dims match values'): before equal entries, or after them
    with right=True / side='right'."""
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True contradicts side='left'")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = take_along_axis(seq, sorter, -1)
    if len(seq.shape) > 1 and list(seq.shape[:-1]) != list(values.shape[:-1]):
        raise ValueError(f"searchsorted: sorted_sequence {list(seq.shape)} and values "
                         f"{list(values.shape)} must have the same leading dims")
    if dtype_name_of(seq) != dtype_name_of(values):  # compared in the wider of the two
        common = np.result_type(dtype_name_of(seq), dtype_name_of(values)).name
        if dtype_name_of(seq) != common:
            seq = _C_ops.cast(seq, out_dtype=common)
        if dtype_name_of(values) != common:
            values = _C_ops.cast(values, out_dtype=common)
    rank = len(values.shape)
    v = _C_ops.unsqueeze(values, axes=[rank])
    s = _C_ops.unsqueeze(seq, axes=[len(seq.shape) - 1]) \
        if len(seq.shape) > 1 else seq
    before = (_C_ops.less_equal if right else _C_ops.less_than)(s, v)
    count = _C_ops.reduce_sum(_C_ops.cast(before, out_dtype="int64"), dim=[-1], keep_dim=False,
                              reduce_all=False)
    if out_int32:
        count = _C_ops.cast(count, out_dtype="int32")
    return _out(count, out)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None, *, out=None):
    """searchsorted over a 1-D ``sorted_sequence`` for every entry of x."""
    if len(sorted_sequence.shape) != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got "
                         f"{list(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32, right, out=out)


@accepts(inputs=TENSORS, index=TENSOR)
def multiplex(inputs, index, name=None):
    """Row i of the result is row i of inputs[index[i]] (inputs: tensors [M, ...] of one
    shape; index: int [M, 1])."""
    inputs = list(inputs)
    if len(inputs) < 2:
        raise ValueError("multiplex: inputs must hold at least 2 tensors")
    if dtype_name_of(index) not in ("int32", "int64"):
        raise TypeError(f"multiplex: index must be int32 or int64, got "
                        f"{dtype_name_of(index)}")
    m = inputs[0].shape[0]
    if list(index.shape) != [m, 1]:
        raise ValueError(f"multiplex: index must be [{m}, 1], got {list(index.shape)}")
    stacked = _C_ops.stack(inputs, axis=0)
    rows = _C_ops.reshape(arange(0, m, 1, "int64"), shape=[m, 1])
    which = _C_ops.cast(index, out_dtype="int64")
    return _C_ops.gather_nd(stacked, _C_ops.concat([which, rows], axis=1))
