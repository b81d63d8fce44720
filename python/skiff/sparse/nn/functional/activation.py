"""Activations of sparse tensors: relu, relu6 and leaky_relu map the stored values;
softmax normalises the stored entries of each row (the last axis), absent entries
taking no part, as Paddle's sparse softmax."""
import numpy as np

from ....framework import arguments
from ....framework.arguments import ArgumentError
from ....nn import functional as F
from .... import tensor as T
from ... import pattern
from ...creation import as_coo, segment_sum, take_rows
from ...tensor import require_sparse
from ...unary import map_values

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]


def relu(x, name=None):
    """max(x, 0) of the stored values."""
    return map_values("relu", x, F.relu)


def relu6(x, name=None):
    """min(max(x, 0), 6) of the stored values."""
    return map_values("relu6", x, F.relu6)


def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x >= 0, negative_slope * x elsewhere, of the stored values."""
    slope = arguments.number("leaky_relu", "negative_slope", negative_slope)
    return map_values("leaky_relu", x, lambda v: F.leaky_relu(v, slope))


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries along the last axis (axis must be -1)."""
    x = require_sparse("softmax", x)
    rank = len(x.shape)
    if arguments.axis("softmax", axis, rank) != rank - 1:
        raise ArgumentError(f"softmax: axis must be -1 (the last dim), got {axis}")
    c = as_coo(x)
    if c.sparse_dim() < rank:  # the last axis is dense: a softmax of each stored row
        return x._with_values(F.softmax(c._values, axis=-1))
    host = c._host_indices()
    if not host.shape[1]:
        return x
    rows, inverse = pattern.unique_columns(host[:-1])
    n = rows.shape[1]
    shift = np.full(n, -np.inf)
    np.maximum.at(shift, inverse, c._values.numpy().astype(np.float64))
    device_inverse = inverse.astype(np.int64)
    e = T.exp(T.subtract(c._values, T.cast(T.to_tensor(shift[device_inverse]),
                                           c._values._dtype_name)))
    totals = segment_sum(e, device_inverse, n)
    out = T.divide(e, take_rows(totals, device_inverse))
    return x._with_values(out)
