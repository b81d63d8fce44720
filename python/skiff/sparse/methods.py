"""The sparse methods of skiff.Tensor and of the sparse tensor classes: conversions
(to_sparse_coo, to_sparse_csr, to_dense, coalesce), the pattern accessors a dense Tensor
refuses by name, and the arithmetic operators of sparse tensors."""
from .._C import Tensor
from ..framework.arguments import ArgumentTypeError
from . import binary, creation, matmul, unary
from .tensor import SparseCooTensor, SparseCsrTensor, _SparseTensor


def _dense_refuses(name, wants="a sparse COO or CSR tensor"):
    def method(self, *args, **kwargs):
        raise ArgumentTypeError(f"Tensor.{name}: takes {wants}, got a dense Tensor (make one "
                                f"with to_sparse_coo or to_sparse_csr)")
    method.__name__ = name
    return method


def _sparse_dim(self):
    """0 for a dense Tensor."""
    return 0


def _dense_dim(self):
    """Every dim of a dense Tensor is dense."""
    return len(self.shape)


def _reflected(fn):
    def op(self, other):
        return fn(other, self)
    return op


def install():
    """Puts the methods on Tensor (dense forms) and on the sparse classes."""
    Tensor.to_sparse_coo = creation.to_sparse_coo
    Tensor.to_sparse_csr = creation.to_sparse_csr
    Tensor.to_dense = creation.to_dense
    Tensor.sparse_dim = _sparse_dim
    Tensor.dense_dim = _dense_dim
    for name in ("values", "nnz", "coalesce"):
        setattr(Tensor, name, _dense_refuses(name))
    Tensor.indices = _dense_refuses("indices", "a sparse COO tensor")
    Tensor.is_coalesced = _dense_refuses("is_coalesced", "a sparse COO tensor")
    Tensor.crows = _dense_refuses("crows", "a sparse CSR tensor")
    Tensor.cols = _dense_refuses("cols", "a sparse CSR tensor")
    for cls in (SparseCooTensor, SparseCsrTensor):
        cls.to_dense = creation.to_dense
        cls.to_sparse_coo = creation.to_sparse_coo
        cls.to_sparse_csr = creation.to_sparse_csr
    SparseCooTensor.coalesce = creation.coalesce
    S = _SparseTensor
    S.astype = lambda self, dtype: unary.cast(self, value_dtype=dtype)
    S.cast = S.astype
    S.__neg__ = unary.neg
    S.__abs__ = unary.abs
    S.__pow__ = unary.pow
    S.__add__ = binary.add
    S.__sub__ = binary.subtract
    S.__mul__ = binary.multiply
    S.__rmul__ = binary.multiply
    S.__truediv__ = binary.divide
    S.__matmul__ = matmul.matmul
    S.__rsub__ = _reflected(binary.subtract)
    S.__radd__ = _reflected(binary.add)
