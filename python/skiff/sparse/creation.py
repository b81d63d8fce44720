"""Making sparse tensors and converting between dense, COO and CSR: sparse_coo_tensor,
sparse_csr_tensor, to_dense, to_sparse_coo, to_sparse_csr and coalesce. Patterns are
worked out on the host; values move with gather_nd / scatter_nd_add / index_add, so
gradients flow between the dense and sparse forms."""
import numpy as np

from .._C import Tensor
from ..framework import arguments
from ..framework.arguments import ArgumentError, ArgumentTypeError
from .. import tensor as T
from . import pattern
from .tensor import (SparseCooTensor, SparseCsrTensor, detached, is_sparse_tensor,
                     require_sparse)

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "coalesce"]


def _index_tensor(fn, name, data):
    """An integer Tensor from a list, array or Tensor of indices (Tensors keep int32)."""
    if isinstance(data, Tensor):
        if is_sparse_tensor(data):
            raise ArgumentTypeError(f"{fn}: {name} must be a dense Tensor, got a sparse one")
        if data._dtype_name not in ("int32", "int64"):
            raise ArgumentTypeError(f"{fn}: {name} must be an int32 or int64 Tensor, got "
                                    f"{data._dtype_name}")
        return data
    arr = np.asarray(data)
    if arr.size and arr.dtype.kind not in "iu":
        raise ArgumentTypeError(f"{fn}: {name} must hold integers, got {arr.dtype}")
    return pattern.device(arr.astype(np.int64))


def _values_tensor(fn, data, dtype, stop_gradient):
    """The values as a Tensor of ``dtype``; a Tensor given is used itself (its gradient
    flows) when stop_gradient is False, a detached copy otherwise."""
    if isinstance(data, Tensor):
        if is_sparse_tensor(data):
            raise ArgumentTypeError(f"{fn}: values must be a dense Tensor, got a sparse one")
        values = data if dtype is None else T.cast(data, dtype)
    else:
        values = T.to_tensor(data, dtype=dtype)
    if stop_gradient or values.stop_gradient:
        values = detached(values)
        values.stop_gradient = bool(stop_gradient)
    return values


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    """A COO tensor: values[k] sits at indices[:, k]; ``shape`` defaults to the smallest
    that holds every index. Repeated indices are kept (coalesce sums them)."""
    fn = "sparse_coo_tensor"
    stop_gradient = arguments.flag(fn, "stop_gradient", stop_gradient)
    indices = _index_tensor(fn, "indices", indices)
    values = _values_tensor(fn, values, dtype, stop_gradient)
    if len(indices.shape) != 2:
        raise ArgumentError(f"{fn}: indices must be 2-D [sparse_dim, nnz], got shape "
                            f"{indices.shape}")
    sparse_dim, nnz = indices.shape
    if not values.shape or values.shape[0] != nnz:
        raise ArgumentError(f"{fn}: values must have nnz={nnz} rows (one per column of "
                            f"indices), got shape {values.shape}")
    host = pattern.host(indices)
    if shape is None:
        high = host.max(axis=1) + 1 if nnz else np.zeros(sparse_dim, np.int64)
        shape = [int(h) for h in high] + list(values.shape[1:])
    shape = [int(s) for s in (shape.tolist() if isinstance(shape, Tensor) else shape)]
    if len(shape) != sparse_dim + len(values.shape) - 1 or \
            shape[sparse_dim:] != list(values.shape[1:]):
        raise ArgumentError(f"{fn}: shape {shape} must be indices' {sparse_dim} sparse dims "
                            f"followed by values' dense dims {list(values.shape[1:])}")
    pattern.check_indices(fn, host, shape[:sparse_dim])
    return SparseCooTensor(indices, values, shape)


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    """A CSR matrix [M, N] or batch [B, M, N] from its compressed rows, columns and
    values (one per column entry)."""
    fn = "sparse_csr_tensor"
    stop_gradient = arguments.flag(fn, "stop_gradient", stop_gradient)
    crows = _index_tensor(fn, "crows", crows)
    cols = _index_tensor(fn, "cols", cols)
    values = _values_tensor(fn, values, dtype, stop_gradient)
    if len(crows.shape) != 1 or len(cols.shape) != 1 or len(values.shape) != 1:
        raise ArgumentError(f"{fn}: crows, cols and values must be 1-D, got shapes "
                            f"{crows.shape}, {cols.shape} and {values.shape}")
    if cols.shape[0] != values.shape[0]:
        raise ArgumentError(f"{fn}: cols and values must have the same length, got "
                            f"{cols.shape[0]} and {values.shape[0]}")
    host_cols = pattern.host(cols)
    if shape is None:
        shape = [crows.shape[0] - 1, int(host_cols.max()) + 1 if host_cols.size else 0]
    shape = [int(s) for s in shape]
    if len(shape) not in (2, 3):
        raise ArgumentError(f"{fn}: shape must be 2-D or 3-D, got {shape}")
    batches = 1 if len(shape) == 2 else shape[0]
    if crows.shape[0] != batches * (shape[-2] + 1):
        raise ArgumentError(f"{fn}: crows must have {batches * (shape[-2] + 1)} entries "
                            f"(rows + 1 per batch) for shape {shape}, got {crows.shape[0]}")
    host_crows = pattern.host(crows).reshape(batches, shape[-2] + 1)
    if (host_crows[:, 0] != 0).any() or host_crows[:, -1].sum() != cols.shape[0]:
        raise ArgumentError(f"{fn}: each batch's crows must start at 0 and the last entries "
                            f"must add up to the {cols.shape[0]} entries of cols")
    pattern.csr_rows(host_crows.reshape(-1), shape)  # checks crows do not decrease
    pattern.check_indices(fn, host_cols[None, :], shape[-1:])
    return SparseCsrTensor(crows, cols, values, shape)


def coo(indices, values, shape, coalesced=False):
    """A COO tensor from a host index array [sparse_dim, nnz]."""
    return SparseCooTensor(pattern.device(indices), values, shape, coalesced)


def segment_sum(values, inverse, count):
    """[count, *dense]: row i is the sum of the rows k of ``values`` with inverse[k] == i."""
    bool_values = values._dtype_name == "bool"
    if bool_values:
        values = T.cast(values, "int32")
    out = T.index_add(T.zeros([count] + list(values.shape[1:]), values._dtype_name),
                      pattern.device(inverse), 0, values)
    return T.cast(out, "bool") if bool_values else out


def take_rows(values, rows):
    """values[rows] along dim 0 (rows a host int array, possibly empty)."""
    if len(rows) == 0:
        return T.zeros([0] + list(values.shape[1:]), values._dtype_name)
    return T.gather(values, pattern.device(rows))


def coalesce(x, name=None):
    """The COO tensor with its indices sorted and repeated ones summed."""
    x = require_sparse("coalesce", x, formats=("coo",))
    if x._coalesced:
        return x
    host = x._host_indices()
    if pattern.is_sorted_unique(host):
        return SparseCooTensor(x._indices, x._values, x._shape, coalesced=True)
    uniq, inverse = pattern.unique_columns(host)
    return coo(uniq, segment_sum(x._values, inverse, uniq.shape[1]), x._shape, True)


def to_dense(x):
    """The dense Tensor of a sparse one (repeated indices add up); a dense one itself."""
    if not is_sparse_tensor(x):
        return x
    host = x._host_indices()
    values = x._values
    bool_values = values._dtype_name == "bool"
    if bool_values:
        values = T.cast(values, "int32")
    out = T.zeros(x.shape, values._dtype_name)
    if host.shape[1]:
        out = T.scatter_nd_add(out, pattern.device(host.T), values)
    return T.cast(out, "bool") if bool_values else out


def _dense_to_coo(x, sparse_dim):
    arr = x.numpy()
    lead = arr.reshape(list(arr.shape[:sparse_dim]) + [-1]) if sparse_dim < arr.ndim \
        else arr[..., None]
    idx = np.stack(np.nonzero((lead != 0).any(axis=-1))).astype(np.int64)
    values = T.gather_nd(x, pattern.device(idx.T)) if idx.shape[1] else \
        T.zeros([0] + list(arr.shape[sparse_dim:]), x._dtype_name)
    return coo(idx, values, x.shape, coalesced=True)


def to_sparse_coo(x, sparse_dim):
    """The COO form of x with its first ``sparse_dim`` dims sparse: a dense Tensor keeps
    the index tuples where any value is nonzero."""
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"to_sparse_coo: x must be a Tensor, got {type(x).__name__}")
    sparse_dim = arguments.integer("to_sparse_coo", "sparse_dim", sparse_dim)
    if not 1 <= sparse_dim <= len(x.shape):
        raise ArgumentError(f"to_sparse_coo: sparse_dim must be in [1, {len(x.shape)}] for a "
                            f"{len(x.shape)}-D tensor, got {sparse_dim}")
    if isinstance(x, SparseCsrTensor):
        full = coo(x._host_indices(), x._values, x._shape, coalesced=True)
        return full if sparse_dim == len(x.shape) else _dense_to_coo(to_dense(full), sparse_dim)
    if isinstance(x, SparseCooTensor):
        return x if sparse_dim == x.sparse_dim() else _dense_to_coo(to_dense(x), sparse_dim)
    return _dense_to_coo(x, sparse_dim)


def to_sparse_csr(x):
    """The CSR form of a 2-D or 3-D tensor (a COO one is coalesced first)."""
    if not isinstance(x, Tensor):
        raise ArgumentTypeError(f"to_sparse_csr: x must be a Tensor, got {type(x).__name__}")
    if isinstance(x, SparseCsrTensor):
        return x
    if len(x.shape) not in (2, 3):
        raise ArgumentError(f"to_sparse_csr: takes a 2-D or 3-D tensor, got shape {x.shape}")
    if isinstance(x, SparseCooTensor):
        x = coalesce(x) if x.sparse_dim() == len(x.shape) else \
            _dense_to_coo(to_dense(x), len(x.shape))
    else:
        x = _dense_to_coo(x, len(x.shape))
    host = x._host_indices()
    return SparseCsrTensor(pattern.device(pattern.csr_crows(host, x._shape)),
                           pattern.device(host[-1]), x._values, x._shape)


def like_format(x, out):
    """``out`` (COO) in x's format: CSR when x is CSR."""
    return to_sparse_csr(out) if isinstance(x, SparseCsrTensor) else out


def as_coo(x):
    """x as a COO tensor with every dim of a CSR sparse (the same values Tensor)."""
    if isinstance(x, SparseCsrTensor):
        return coo(x._host_indices(), x._values, x._shape, coalesced=True)
    return x
