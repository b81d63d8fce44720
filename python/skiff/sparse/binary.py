"""Elementwise functions of two sparse tensors of one shape and format, as Paddle's:
add, subtract and multiply hold the union of the two patterns (x * y there, explicit
zeros kept), divide every position of the sparse dims (0 / 0 is NaN); a number
multiplies or divides the values. mask_as reads a dense tensor at a sparse pattern."""
import numbers

import numpy as np

from .._C import Tensor
from ..framework.arguments import ArgumentError, ArgumentTypeError
from .. import tensor as T
from . import pattern
from .creation import as_coo, coo, like_format, segment_sum, to_dense
from .tensor import check_same_shape, is_sparse_tensor, require_sparse

__all__ = ["add", "subtract", "multiply", "divide", "mask_as", "is_same_shape"]


def _operands(fn, x, y):
    """x and y as COO tensors of the same shape, format and sparse dims."""
    x = require_sparse(fn, x)
    y = require_sparse(fn, y, "y")
    if x._sparse_format != y._sparse_format:
        raise ArgumentTypeError(f"{fn}: x and y must have the same format, got sparse "
                                f"{x._sparse_format.upper()} and {y._sparse_format.upper()}")
    check_same_shape(fn, x, y)
    if x._dtype_name != y._dtype_name:
        raise ArgumentTypeError(f"{fn}: x and y must have the same dtype, got "
                                f"{x._dtype_name} and {y._dtype_name}")
    cx, cy = as_coo(x), as_coo(y)
    if cx.sparse_dim() != cy.sparse_dim():
        raise ArgumentError(f"{fn}: x and y must have the same sparse_dim, got "
                            f"{cx.sparse_dim()} and {cy.sparse_dim()}")
    return cx, cy


def _on_union(fn, x, y, combine):
    """combine(x's values, y's values) over the union of the two patterns, both scattered
    there (zeros where one has no entry), in x's format."""
    cx, cy = _operands(fn, x, y)
    hx, hy = cx._host_indices(), cy._host_indices()
    uniq, inverse = pattern.unique_columns(np.concatenate([hx, hy], axis=1))
    n = uniq.shape[1]
    vx = segment_sum(cx._values, inverse[:hx.shape[1]], n)
    vy = segment_sum(cy._values, inverse[hx.shape[1]:], n)
    return like_format(x, coo(uniq, combine(vx, vy), cx._shape, coalesced=True))


def _on_grid(fn, x, y, combine):
    """combine over every position of the sparse dims, in x's format."""
    cx, cy = _operands(fn, x, y)
    sparse_shape = cx._shape[:cx.sparse_dim()]
    grid = pattern.full_grid(sparse_shape)
    n = grid.shape[1]

    def spread(c):
        h = c._host_indices()
        flat = np.ravel_multi_index(tuple(h), sparse_shape) if h.shape[1] else \
            np.zeros([0], np.int64)
        return segment_sum(c._values, flat.astype(np.int64), n)

    return like_format(x, coo(grid, combine(spread(cx), spread(cy)), cx._shape, True))


def add(x, y, name=None):
    """x + y: sparse + sparse over the union of patterns; sparse + dense is dense."""
    if is_sparse_tensor(x) and isinstance(y, Tensor) and not is_sparse_tensor(y):
        return T.add(to_dense(x), y)
    return _on_union("add", x, y, T.add)


def subtract(x, y, name=None):
    """x - y over the union of the two patterns."""
    return _on_union("subtract", x, y, T.subtract)


def _scalar(y):
    return isinstance(y, numbers.Number) and not isinstance(y, bool)


def multiply(x, y, name=None):
    """x * y over the union of the two patterns, or the values times a number."""
    if _scalar(y):
        x = require_sparse("multiply", x)
        return x._with_values(T.scale(x._values, float(y)))
    return _on_union("multiply", x, y, T.multiply)


def divide(x, y, name=None):
    """x / y at every position of the sparse dims, or the values over a number."""
    if _scalar(y):
        x = require_sparse("divide", x)
        return x._with_values(T.divide(x._values, T.full([], y, x._values._dtype_name)))
    return _on_grid("divide", x, y, T.divide)


def mask_as(x, mask, name=None):
    """A sparse tensor of mask's pattern (and format) holding dense x's values there."""
    if not isinstance(x, Tensor) or is_sparse_tensor(x):
        raise ArgumentTypeError("mask_as: x must be a dense Tensor")
    mask = require_sparse("mask_as", mask, "mask")
    check_same_shape("mask_as", x, mask)
    host = mask._host_indices()
    values = T.gather_nd(x, pattern.device(host.T)) if host.shape[1] else \
        T.zeros([0] + x.shape[host.shape[0]:], x._dtype_name)
    return mask._with_values(values)


def is_same_shape(x, y):
    """True when x and y (dense or sparse) have the same shape."""
    for name, v in (("x", x), ("y", y)):
        if not isinstance(v, Tensor):
            raise ArgumentTypeError(f"is_same_shape: {name} must be a Tensor, got "
                                    f"{type(v).__name__}")
    return list(x.shape) == list(y.shape)
