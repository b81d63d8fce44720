"""Shape functions of sparse tensors: transpose, reshape, sum and slice. Index
arithmetic runs on the host; values move with gather and segment sums, so gradients
flow. A function that would move a dense dim into the sparse ones goes through the
dense form."""
import numpy as np

from .._C import Tensor
from ..framework import arguments
from ..framework.arguments import ArgumentError
from .. import tensor as T
from . import pattern
from .creation import (as_coo, coo, like_format, segment_sum, take_rows, to_dense,
                       to_sparse_coo, to_sparse_csr)
from .tensor import SparseCooTensor, SparseCsrTensor, require_sparse

__all__ = ["transpose", "reshape", "sum", "slice"]


def _sorted(indices, values, shape):
    """A coalesced COO tensor from unique but unsorted indices."""
    uniq, inverse = pattern.unique_columns(indices)
    return coo(uniq, segment_sum(values, inverse, uniq.shape[1]), shape, coalesced=True)


def _same_format(x, out):
    """out (COO) in x's format where it can be (CSR needs 2-D or 3-D)."""
    if isinstance(x, SparseCsrTensor):
        return to_sparse_csr(out) if len(out.shape) in (2, 3) else out
    return out


def transpose(x, perm, name=None):
    """x with its dims permuted by ``perm``."""
    x = require_sparse("transpose", x)
    rank = len(x.shape)
    perm = [arguments.axis("transpose", p, rank, "perm") for p in arguments.integers(
        "transpose", "perm", perm)]
    if sorted(perm) != list(range(rank)):
        raise ArgumentError(f"transpose: perm must be a permutation of 0..{rank - 1}, got "
                            f"{perm}")
    c = as_coo(x)
    s = c.sparse_dim()
    shape = [x.shape[p] for p in perm]
    if sorted(perm[:s]) != list(range(s)):
        dense = T.transpose(to_dense(c), perm)
        return _same_format(x, to_sparse_coo(dense, s))
    values = c._values if perm[s:] == list(range(s, rank)) else \
        T.transpose(c._values, [0] + [p - s + 1 for p in perm[s:]])
    return _same_format(x, _sorted(c._host_indices()[perm[:s]], values, shape))


def _target_shape(fn, old, new):
    new = arguments.integers(fn, "shape", new)
    out = [old[i] if d == 0 and i < len(old) else d for i, d in enumerate(new)]
    total = int(np.prod(old, dtype=np.int64))
    if out.count(-1) > 1:
        raise ArgumentError(f"{fn}: shape may hold one -1, got {new}")
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1], dtype=np.int64))
        if known == 0 or total % known:
            raise ArgumentError(f"{fn}: cannot reshape {old} to {new}")
        out[out.index(-1)] = total // known
    if any(d < 0 for d in out) or int(np.prod(out, dtype=np.int64)) != total:
        raise ArgumentError(f"{fn}: cannot reshape {old} ({total} elements) to {new}")
    return out


def reshape(x, shape, name=None):
    """x reshaped (0 keeps a dim, -1 is inferred); a COO tensor's dense dims stay."""
    x = require_sparse("reshape", x)
    c = as_coo(x)
    s = c.sparse_dim()
    dense_shape = c._shape[s:]
    new = _target_shape("reshape", c._shape, shape)
    if dense_shape and new[len(new) - len(dense_shape):] != dense_shape:
        return _same_format(x, to_sparse_coo(T.reshape(to_dense(c), new), len(new)))
    sparse_new = new[:len(new) - len(dense_shape)]
    host = c._host_indices()
    flat = np.ravel_multi_index(tuple(host), c._shape[:s]) if host.shape[1] else \
        np.zeros([0], np.int64)
    idx = np.stack(np.unravel_index(flat, sparse_new)).astype(np.int64) if sparse_new else \
        np.zeros([0, host.shape[1]], np.int64)
    return _same_format(x, _sorted(idx.reshape(len(sparse_new), -1), c._values, new))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum over ``axis`` (all dims when None) as a sparse tensor; a sparse dim summed
    away leaves a dim of 1 where it was the only one."""
    x = require_sparse("sum", x)
    keepdim = arguments.flag("sum", "keepdim", keepdim)
    values = x._values if dtype is None else T.cast(x._values, dtype)
    rank = len(x.shape)
    if axis is None:
        total = T.reshape(T.sum(values), [1])
        shape = [1] * rank if keepdim else [1]
        if isinstance(x, SparseCsrTensor):
            shape = [1] * rank
        out = coo(np.zeros([len(shape), 1], np.int64), total, shape, coalesced=True)
        return _same_format(x, out)
    axes = sorted({arguments.axis("sum", a, rank) for a in arguments.integers(
        "sum", "axis", axis)}, reverse=True)
    c = as_coo(x)._with_values(values)
    if isinstance(x, SparseCsrTensor):
        keepdim = True  # a CSR result keeps its rank
    for a in axes:
        c = _sum_axis(c, a, keepdim)
    return _same_format(x, c)


def _sum_axis(c, a, keepdim):
    s = c.sparse_dim()
    if a >= s:
        values = T.sum(c._values, axis=a - s + 1, keepdim=keepdim)
        shape = [n for i, n in enumerate(c._shape) if i != a or keepdim]
        if keepdim:
            shape[a] = 1
        return SparseCooTensor(c._indices, values, shape, c._coalesced)
    host = c._host_indices()
    if keepdim or s == 1:
        host = host.copy()
        host[a] = 0
        shape = list(c._shape)
        shape[a] = 1
    else:
        host = np.delete(host, a, axis=0)
        shape = c._shape[:a] + c._shape[a + 1:]
    return _sorted(host, c._values, shape)


def _bounds(dim, start, end):
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    return min(max(start, 0), dim), min(max(end, 0), dim)


def slice(x, axes, starts, ends, name=None):
    """x[starts:ends] along each of ``axes`` (negative bounds count from the end)."""
    x = require_sparse("slice", x)
    rank = len(x.shape)
    lists = [arguments.integers("slice", p, v.tolist() if isinstance(v, Tensor) else v)
             for p, v in (("axes", axes), ("starts", starts), ("ends", ends))]
    axes, starts, ends = lists
    if not len(axes) == len(starts) == len(ends):
        raise ArgumentError(f"slice: axes, starts and ends must have the same length, got "
                            f"{len(axes)}, {len(starts)} and {len(ends)}")
    c = as_coo(x)
    s = c.sparse_dim()
    host = c._host_indices()
    keep = np.ones(host.shape[1], bool)
    shape = list(c._shape)
    values = c._values
    offsets = np.zeros([s, 1], np.int64)
    for a, st, en in zip(axes, starts, ends):
        a = arguments.axis("slice", a, rank, "axes")
        lo, hi = _bounds(c._shape[a], st, en)
        shape[a] = max(hi - lo, 0)
        if a < s:
            keep &= (host[a] >= lo) & (host[a] < hi)
            offsets[a] = lo
        else:
            values = T.slice(values, [a - s + 1], [lo], [max(hi, lo)])
    picked = np.nonzero(keep)[0]
    values = take_rows(values, picked) if len(picked) < host.shape[1] else values
    out = coo(host[:, picked] - offsets, values, shape, coalesced=True)
    return like_format(x, out)
