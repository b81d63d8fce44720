"""Sparse 3-D max pooling over an NDHWC COO tensor: the maximum, per channel, of the
stored entries each output site's window holds (absent sites do not count as zeros)."""
import numpy as np

from ....framework.arguments import ArgumentError
from .... import tensor as T
from ...creation import coalesce, coo, segment_sum, take_rows
from ...tensor import require_sparse
from . import rulebook

__all__ = ["max_pool3d"]


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC",
               name=None):
    """Max pooling of a sparse NDHWC tensor (sparse_dim 4); stride defaults to the
    kernel size. Gradients reach the maximal entries."""
    fn = "max_pool3d"
    x = require_sparse(fn, x, formats=("coo",))
    if data_format != "NDHWC":
        raise ArgumentError(f"{fn}: data_format must be 'NDHWC', got {data_format!r}")
    if len(x.shape) != 5 or x.sparse_dim() != 4:
        raise ArgumentError(f"{fn}: x must be a 5-D NDHWC COO tensor with sparse_dim 4, got "
                            f"shape {x.shape} and sparse_dim {x.sparse_dim()}")
    kernel = rulebook.sizes(fn, "kernel_size", kernel_size, 3)
    stride = kernel if stride is None else rulebook.sizes(fn, "stride", stride, 3)
    dilation = [1, 1, 1]
    before, after = rulebook.paddings(fn, padding, 3, kernel, dilation)
    out_spatial = rulebook.out_shape(x.shape[1:4], kernel, stride, before, after, dilation,
                                     bool(ceil_mode))
    if any(n <= 0 for n in out_spatial):
        raise ArgumentError(f"{fn}: the output would be empty for spatial {x.shape[1:4]} "
                            f"and kernel {kernel}")
    x = coalesce(x)
    book, _ = rulebook.build(x._host_indices(), x.shape[1:4], kernel, stride, before,
                             dilation, out_spatial, False)
    count = book.out_indices.shape[1]
    lowest = T.full([count, x.shape[-1]], float("-inf"), x._dtype_name)
    out = lowest
    for entries, sites in book.pairs:  # one input per output site and offset
        if not len(entries):
            continue
        placed = segment_sum(take_rows(x._values, entries), sites, count)
        hit = np.zeros([count, 1], bool)
        hit[sites] = True
        out = T.maximum(out, T.where(T.to_tensor(hit), placed, lowest))
    shape = [x.shape[0]] + list(out_spatial) + [x.shape[-1]]
    return coo(book.out_indices, out, shape, coalesced=True)
