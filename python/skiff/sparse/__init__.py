"""skiff.sparse (Paddle's paddle.sparse): COO and CSR tensors holding dense skiff Tensors
(indices or crows/cols, and values) plus their shape, and the functions on them, each
composed of skiff's dense ops so gradients flow through the values (docs/sparse.md)."""
from . import methods as _methods
from .binary import add, divide, is_same_shape, mask_as, multiply, subtract
from .creation import coalesce, sparse_coo_tensor, sparse_csr_tensor
from .lowrank import pca_lowrank
from .matmul import addmm, masked_matmul, matmul, mv
from .shape import reshape, slice, sum, transpose
from .tensor import SparseCooTensor, SparseCsrTensor
from .unary import (abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, isnan, log1p, neg,
                    pow, rad2deg, sin, sinh, sqrt, square, tan, tanh)
from . import nn

_methods.install()

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sin", "tan", "asin", "atan", "sinh",
           "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "abs", "pow", "pca_lowrank",
           "cast", "neg", "deg2rad", "rad2deg", "expm1", "mv", "matmul", "mask_as",
           "masked_matmul", "addmm", "add", "subtract", "transpose", "sum", "multiply",
           "divide", "coalesce", "is_same_shape", "reshape", "isnan", "slice"]
_ = (SparseCooTensor, SparseCsrTensor)
