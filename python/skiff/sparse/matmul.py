"""Products with sparse matrices (2-D, or batches of them, 3-D): sparse @ dense is dense
(the rows of y each stored entry reads, scaled and added into its output row); sparse @
sparse is sparse of the structural product pattern; masked_matmul computes dense x @ y
only where a sparse mask has entries. Gradients reach the values and the dense operands."""
import numpy as np

from .._C import Tensor
from ..framework.arguments import ArgumentError, ArgumentTypeError
from .. import tensor as T
from . import pattern
from .binary import add, multiply
from .creation import as_coo, coo, like_format, segment_sum, take_rows
from .tensor import is_sparse_tensor, require_sparse

__all__ = ["matmul", "masked_matmul", "addmm", "mv"]


def _batched(fn, shape, name):
    if len(shape) not in (2, 3):
        raise ArgumentError(f"{fn}: {name} must be 2-D or batched 3-D, got shape {shape}")
    return (1, *shape) if len(shape) == 2 else tuple(shape)


def _check_inner(fn, x_shape, y_shape):
    bx, m, k = _batched(fn, x_shape, "x")
    by, k2, n = _batched(fn, y_shape, "y")
    if k != k2 or bx != by:
        raise ArgumentError(f"{fn}: x {list(x_shape)} and y {list(y_shape)} do not chain "
                            f"(x's last dim must equal y's second last, batches equal)")
    return bx, m, k, n


def _entries(c, batches):
    """(batch, row, col) host arrays of a full-sparse-dim COO matrix's entries."""
    h = c._host_indices()
    b = h[0] if len(c._shape) == 3 else np.zeros(h.shape[1], np.int64)
    return b, h[-2], h[-1]


def _sparse_dense(fn, x, y):
    c = as_coo(x)
    if c.sparse_dim() != len(c._shape):
        raise ArgumentError(f"{fn}: a sparse x must have every dim sparse (no dense dims)")
    bsz, m, k, n = _check_inner(fn, c._shape, y.shape)
    b, i, j = _entries(c, bsz)
    rows = take_rows(T.reshape(y, [bsz * k, n]), b * k + j)
    scaled = T.multiply(T.unsqueeze(c._values, -1), rows)
    out = segment_sum(scaled, b * m + i, bsz * m)
    return T.reshape(out, list(x.shape[:-1]) + [n])


def _sparse_sparse(fn, x, y):
    cx, cy = as_coo(x), as_coo(y)
    bsz, m, k, n = _check_inner(fn, cx._shape, cy._shape)
    xb, xi, xk = _entries(cx, bsz)
    yb, yk, yj = _entries(cy, bsz)
    key_y = yb * k + yk
    order = np.argsort(key_y, kind="stable")
    counts = np.bincount(key_y, minlength=bsz * k)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    per_x = counts[xb * k + xk]
    x_pick = np.repeat(np.arange(len(xb)), per_x)
    offset = np.arange(per_x.sum()) - np.repeat(np.cumsum(per_x) - per_x, per_x)
    y_pick = order[starts[(xb * k + xk)[x_pick]] + offset]
    out_idx = np.stack([xb[x_pick], xi[x_pick], yj[y_pick]])
    if len(cx._shape) == 2:
        out_idx = out_idx[1:]
    uniq, inverse = pattern.unique_columns(out_idx)
    products = T.multiply(take_rows(cx._values, x_pick), take_rows(cy._values, y_pick))
    shape = list(cx._shape[:-1]) + [n]
    return like_format(x, coo(uniq, segment_sum(products, inverse, uniq.shape[1]), shape,
                              coalesced=True))


def matmul(x, y, name=None):
    """x @ y with x sparse (COO or CSR): dense y gives a dense result, sparse y (same
    format) a sparse one."""
    x = require_sparse("matmul", x)
    if not isinstance(y, Tensor):
        raise ArgumentTypeError(f"matmul: y must be a Tensor, got {type(y).__name__}")
    if is_sparse_tensor(y):
        if y._sparse_format != x._sparse_format:
            raise ArgumentTypeError("matmul: a sparse y must have x's format")
        return _sparse_sparse("matmul", x, y)
    return _sparse_dense("matmul", x, y)


def masked_matmul(x, y, mask, name=None):
    """Dense x @ dense y at the entries of the sparse ``mask`` only (mask's format)."""
    for pname, v in (("x", x), ("y", y)):
        if not isinstance(v, Tensor) or is_sparse_tensor(v):
            raise ArgumentTypeError(f"masked_matmul: {pname} must be a dense Tensor")
    mask = require_sparse("masked_matmul", mask, "mask")
    bsz, m, k, n = _check_inner("masked_matmul", x.shape, y.shape)
    c = as_coo(mask)
    if list(c._shape) != list(x.shape[:-1]) + [n]:
        raise ArgumentError(f"masked_matmul: mask must have the product's shape "
                            f"{list(x.shape[:-1]) + [n]}, got {c._shape}")
    b, i, j = _entries(c, bsz)
    rows = take_rows(T.reshape(x, [bsz * m, k]), b * m + i)
    y_t = T.reshape(T.transpose(T.reshape(y, [bsz, k, n]), [0, 2, 1]), [bsz * n, k])
    cols = take_rows(y_t, b * n + j)
    values = T.sum(T.multiply(rows, cols), axis=1)
    return like_format(mask, coo(c._host_indices(), values, c._shape, True))


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y) with x sparse: dense when y and input are dense,
    sparse when all three are sparse."""
    product = matmul(x, y)
    if is_sparse_tensor(product):
        if not is_sparse_tensor(input):
            raise ArgumentTypeError("addmm: input must be sparse when x and y are sparse")
        return add(multiply(input, float(beta)), multiply(product, float(alpha)))
    if is_sparse_tensor(input):
        raise ArgumentTypeError("addmm: input must be dense when y is dense")
    if list(input.shape) != list(product.shape):
        input = T.broadcast_to(input, product.shape)
    return T.add(T.scale(input, float(beta)), T.scale(product, float(alpha)))


def mv(x, vec, name=None):
    """The dense product of a sparse [M, N] matrix and a dense [N] vector."""
    x = require_sparse("mv", x)
    if len(x.shape) != 2 or not isinstance(vec, Tensor) or len(vec.shape) != 1:
        raise ArgumentError(f"mv: takes a 2-D sparse x and a 1-D dense vec, got shapes "
                            f"{x.shape} and {getattr(vec, 'shape', type(vec).__name__)}")
    return T.squeeze(_sparse_dense("mv", x, T.unsqueeze(vec, -1)), -1)
