"""Sparse tensors: SparseCooTensor (indices [sparse_dim, nnz] and values [nnz, *dense
dims]) and SparseCsrTensor (crows, cols and values of a 2-D or batched 3-D matrix), each
holding dense skiff Tensors plus its shape. They are skiff.Tensor subclasses whose own
dense value stays empty: isinstance(x, Tensor) holds as in Paddle, dense functions refuse
them by name, and gradients flow through ``values``."""
import numpy as np

from .._C import Tensor
from ..framework import dtype as dt
from ..framework.arguments import ArgumentError, ArgumentTypeError
from ..tensor import printing
from .. import tensor as T
from . import pattern

__all__ = ["SparseCooTensor", "SparseCsrTensor", "is_sparse_tensor", "detached"]


def is_sparse_tensor(x):
    return isinstance(x, _SparseTensor)


def detached(t):
    """A leaf copy of the dense Tensor ``t`` that no gradient flows back from."""
    out = T.assign(t)
    out._detach_history()
    out.stop_gradient = True
    return out


class _SparseTensor(Tensor):
    """What COO and CSR tensors share: the shape, dtype, gradient flags and printing, all
    read from the values Tensor."""

    _sparse_format = None

    def __init__(self, values, shape):
        # the C++ part stays unconstructed: no dense value, and nothing reads it
        self._values = values
        self._shape = [int(s) for s in shape]

    # -- the Tensor face --
    @property
    def shape(self):
        return list(self._shape)

    @property
    def _dtype_name(self):
        return self._values._dtype_name

    @property
    def _kind(self):
        return "sparse_" + self._sparse_format

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._values.stop_gradient = value

    @property
    def is_leaf(self):
        return self._values.is_leaf

    @property
    def grad(self):
        """The gradient of a leaf: a sparse tensor of the same pattern, or None."""
        g = self._values.grad
        return None if g is None else self._with_values(g)

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, type(self)):
            raise ArgumentTypeError(f"{type(self).__name__}.grad must be a sparse tensor of "
                                    f"the same format or None")
        self._values.grad = None if value is None else value._values

    def backward(self, grad_tensor=None, retain_graph=False):
        """Backpropagates from the values: grad_tensor is a sparse tensor of the same
        pattern (ones when None)."""
        if grad_tensor is not None:
            if not isinstance(grad_tensor, _SparseTensor):
                raise ArgumentTypeError("Tensor.backward: grad_tensor of a sparse tensor must "
                                        "be a sparse tensor of the same pattern")
            grad_tensor = grad_tensor._values
        else:
            grad_tensor = T.ones_like(self._values)
        self._values.backward(grad_tensor, retain_graph)

    def clear_grad(self, set_to_zero=True):
        self._values.clear_grad(set_to_zero)

    clear_gradient = clear_grad

    def detach(self):
        return self._with_values(detached(self._values))

    def numpy(self, copy=True):
        """The dense value as a numpy array."""
        return self.to_dense().numpy()

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def item(self, *args):
        return self.to_dense().item(*args)

    def tolist(self):
        return self.numpy().tolist()

    # -- the sparse face --
    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def is_sparse_coo(self):
        return self._sparse_format == "coo"

    def is_sparse_csr(self):
        return self._sparse_format == "csr"

    def values(self):
        """The stored values (gradients flow through them to this tensor)."""
        return self._values

    def nnz(self):
        """The number of stored entries."""
        return int(self._values.shape[0])

    def _fields(self):
        """[(name, ndarray)] shown by repr before the values."""
        raise NotImplementedError

    def __repr__(self):
        head = (f"Tensor(shape={self.shape}, dtype=paddle.{self._dtype_name}, "
                f"place=Place(cpu), stop_gradient={self.stop_gradient}, \n")
        lines = []
        for name, arr in self._fields() + [("values", self._values.numpy())]:
            prefix = " " * 7 + name + "="
            lines.append(prefix + printing.values_text(arr, " " * len(prefix)))
        return head + ", \n".join(lines) + ")"

    __str__ = __repr__

    def __len__(self):
        if not self._shape:
            raise ArgumentTypeError("len() of a 0-D Tensor")
        return self._shape[0]

    def __bool__(self):
        return bool(self.to_dense())

    __hash__ = object.__hash__


class SparseCooTensor(_SparseTensor):
    """A COO tensor: entry k sits at indices[:, k] (the first sparse_dim dims) and holds
    values[k] (the remaining dense dims)."""

    _sparse_format = "coo"

    def __init__(self, indices, values, shape, coalesced=False):
        super().__init__(values, shape)
        self._indices = indices
        self._coalesced = bool(coalesced)

    def _with_values(self, values):
        return SparseCooTensor(self._indices, values, self._shape, self._coalesced)

    def _fields(self):
        return [("indices", self._indices.numpy())]

    def indices(self):
        """The [sparse_dim, nnz] index Tensor."""
        return self._indices

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return len(self._shape) - self.sparse_dim()

    def is_coalesced(self):
        """True when the indices are known sorted and without repeats (after coalesce)."""
        return self._coalesced

    def crows(self):
        raise ArgumentTypeError("Tensor.crows: only a sparse CSR tensor has crows; this is "
                                "a sparse COO tensor")

    cols = crows

    def _host_indices(self):
        return pattern.host(self._indices)


class SparseCsrTensor(_SparseTensor):
    """A CSR matrix [M, N] (or a batch [B, M, N]): the entries of row r (of batch b) are
    cols/values[crows[b*(M+1)+r] : crows[b*(M+1)+r+1]] offset by the batch's start."""

    _sparse_format = "csr"

    def __init__(self, crows, cols, values, shape):
        super().__init__(values, shape)
        self._crows = crows
        self._cols = cols

    def _with_values(self, values):
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _fields(self):
        return [("crows", self._crows.numpy()), ("cols", self._cols.numpy())]

    def crows(self):
        """The compressed row offsets (B*(M+1) entries for a batch)."""
        return self._crows

    def cols(self):
        """The column of each stored entry."""
        return self._cols

    def sparse_dim(self):
        return len(self._shape)

    def dense_dim(self):
        return 0

    def indices(self):
        raise ArgumentTypeError("Tensor.indices: only a sparse COO tensor has indices; this "
                                "is a sparse CSR tensor (use crows() and cols(), or "
                                "to_sparse_coo)")

    def is_coalesced(self):
        raise ArgumentTypeError("Tensor.is_coalesced: takes a sparse COO tensor, got a sparse "
                                "CSR tensor")

    coalesce = is_coalesced

    def _host_indices(self):
        """The COO indices [ndim, nnz] of the stored entries (row-major order)."""
        rows = pattern.csr_rows(pattern.host(self._crows), self._shape)
        return np.concatenate([rows, pattern.host(self._cols)[None, :]], axis=0)


def dtype_of(x):
    return dt.to_dtype(x._dtype_name)


def require_sparse(fn, x, name="x", formats=("coo", "csr")):
    """``x`` when it is a sparse tensor of one of ``formats``, else ArgumentTypeError."""
    if isinstance(x, _SparseTensor) and x._sparse_format in formats:
        return x
    wanted = " or ".join(f"a sparse {f.upper()} Tensor" for f in formats)
    got = f"a sparse {x._sparse_format.upper()} Tensor" if isinstance(x, _SparseTensor) \
        else ("a dense Tensor" if isinstance(x, Tensor) else type(x).__name__)
    raise ArgumentTypeError(f"{fn}: {name} must be {wanted}, got {got}")


def check_same_shape(fn, x, y):
    if list(x.shape) != list(y.shape):
        raise ArgumentError(f"{fn}: x and y must have the same shape, got {x.shape} and "
                            f"{y.shape}")
