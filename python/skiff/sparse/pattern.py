"""Host-side bookkeeping of sparsity patterns: the integer indices of sparse tensors read
as numpy arrays, sorted, merged and converted between COO and CSR. Nothing here touches
values; the ops apply the index arrays it computes to values with skiff's dense ops."""
import numpy as np

from .. import tensor as T
from ..framework.arguments import ArgumentError


def host(t):
    """The int64 numpy copy of an index Tensor."""
    return np.asarray(t.numpy(), dtype=np.int64)


def device(arr):
    """An int64 Tensor holding ``arr``."""
    return T.to_tensor(np.ascontiguousarray(arr, dtype=np.int64))


def unique_columns(indices):
    """(unique sorted columns [S, U], inverse [nnz]) of a [S, nnz] index array: the
    columns sorted lexicographically (row-major order) and where each column went."""
    if indices.shape[1] == 0:
        return indices.copy(), np.zeros([0], np.int64)
    if indices.shape[0] == 0:
        return np.zeros([0, 1], np.int64), np.zeros([indices.shape[1]], np.int64)
    uniq, inverse = np.unique(indices.T, axis=0, return_inverse=True)
    return np.ascontiguousarray(uniq.T), inverse.reshape(-1).astype(np.int64)


def is_sorted_unique(indices):
    """True when the columns of ``indices`` are strictly increasing in row-major order."""
    if indices.shape[1] < 2:
        return True
    later = indices[:, 1:]
    earlier = indices[:, :-1]
    greater = np.zeros(later.shape[1], bool)
    equal = np.ones(later.shape[1], bool)
    for row in range(indices.shape[0]):
        greater |= equal & (later[row] > earlier[row])
        equal &= later[row] == earlier[row]
    return bool(greater.all())


def positions(indices, table):
    """For each column of ``indices`` its position among the sorted unique columns of
    ``table`` (every column must be there)."""
    joined = np.concatenate([table, indices], axis=1)
    _, inverse = unique_columns(joined)
    return inverse[table.shape[1]:]


def full_grid(shape):
    """The [len(shape), prod(shape)] indices of every position of ``shape`` in order."""
    if not shape:
        return np.zeros([0, 1], np.int64)
    grid = np.indices(shape, dtype=np.int64)
    return grid.reshape(len(shape), -1)


def csr_rows(crows, shape):
    """COO indices [ndim, nnz] of a 2-D [M, N] or batched 3-D [B, M, N] CSR pattern, from
    its crows (B*(M+1) entries); the column row (cols) is appended by the caller."""
    m = shape[-2]
    batches = 1 if len(shape) == 2 else shape[0]
    crows = crows.reshape(batches, m + 1)
    counts = np.diff(crows, axis=1)
    if (counts < 0).any():
        raise ArgumentError("sparse_csr_tensor: crows must not decrease within a batch")
    rows = np.repeat(np.tile(np.arange(m, dtype=np.int64), batches), counts.reshape(-1))
    if len(shape) == 2:
        return rows[None, :]
    batch = np.repeat(np.arange(batches, dtype=np.int64), counts.sum(axis=1))
    return np.stack([batch, rows])


def csr_crows(indices, shape):
    """The crows of a CSR pattern from its row-major sorted COO indices [ndim, nnz]."""
    m = shape[-2]
    batches = 1 if len(shape) == 2 else shape[0]
    batch = indices[0] if len(shape) == 3 else np.zeros(indices.shape[1], np.int64)
    rows = indices[-2]
    counts = np.zeros([batches, m], np.int64)
    np.add.at(counts, (batch, rows), 1)
    crows = np.concatenate([np.zeros([batches, 1], np.int64), np.cumsum(counts, axis=1)], 1)
    return crows.reshape(-1)


def check_indices(fn, indices, sparse_shape):
    """Raises ArgumentError naming ``fn`` when an index is negative or past its dim."""
    if indices.shape[1] == 0:
        return
    low = indices.min(axis=1)
    high = indices.max(axis=1)
    for d, n in enumerate(sparse_shape):
        if low[d] < 0 or high[d] >= n:
            raise ArgumentError(f"{fn}: indices of dim {d} must be in [0, {n}), got values in "
                                f"[{low[d]}, {high[d]}]")
