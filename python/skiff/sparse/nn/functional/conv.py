"""Sparse convolutions over channel-last COO tensors (NHWC with sparse_dim 3, NDHWC with
sparse_dim 4; the channels are the dense dim): a rulebook built on the host says which
input site feeds which output site per kernel offset, then each offset's input features
are gathered, multiplied by its [in, out] slice of the weight and added into the output
sites, so the features, weight and bias get gradients."""
import numpy as np

from ....framework.arguments import ArgumentError
from .... import tensor as T
from ...creation import coalesce, coo, segment_sum, take_rows
from ...tensor import require_sparse
from . import rulebook

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm",
           "subm_conv3d_igemm"]


def _conv(fn, x, weight, bias, stride, padding, dilation, groups, data_format, nd, subm):
    x = require_sparse(fn, x, formats=("coo",))
    layout = "NHWC" if nd == 2 else "NDHWC"
    if data_format != layout:
        raise ArgumentError(f"{fn}: data_format must be '{layout}', got {data_format!r}")
    if groups != 1:
        raise ArgumentError(f"{fn}: groups must be 1, got {groups}")
    if len(x.shape) != nd + 2 or x.sparse_dim() != nd + 1:
        raise ArgumentError(f"{fn}: x must be a {nd + 2}-D {layout} COO tensor with "
                            f"sparse_dim {nd + 1} (channels dense), got shape {x.shape} "
                            f"and sparse_dim {x.sparse_dim()}")
    if len(weight.shape) != nd + 2 or weight.shape[-2] != x.shape[-1]:
        raise ArgumentError(f"{fn}: weight must be [*kernel, in_channels={x.shape[-1]}, "
                            f"out_channels] ({nd + 2}-D), got shape {weight.shape}")
    kernel = list(weight.shape[:nd])
    stride = rulebook.sizes(fn, "stride", stride, nd)
    dilation = rulebook.sizes(fn, "dilation", dilation, nd)
    before, after = rulebook.paddings(fn, padding, nd, kernel, dilation)
    in_spatial = x.shape[1:-1]
    out_spatial = rulebook.out_shape(in_spatial, kernel, stride, before, after, dilation)
    if not subm and any(n <= 0 for n in out_spatial):
        raise ArgumentError(f"{fn}: the output would be empty: spatial {in_spatial}, "
                            f"kernel {kernel}, stride {stride}, padding {padding}")
    x = coalesce(x)
    book, out_spatial = rulebook.build(x._host_indices(), in_spatial, kernel, stride, before,
                                       dilation, out_spatial, subm)
    c_in, c_out = weight.shape[-2], weight.shape[-1]
    count = book.out_indices.shape[1]
    w = T.reshape(weight, [-1, c_in, c_out])
    parts, sites = [], []
    for k, (entries, out_sites) in enumerate(book.pairs):
        if len(entries):
            parts.append(T.matmul(take_rows(x._values, entries), w[k]))
            sites.append(out_sites)
    if parts:
        out = segment_sum(T.concat(parts, axis=0), np.concatenate(sites), count)
    else:
        out = T.zeros([count, c_out], x._dtype_name)
    if bias is not None:
        out = T.add(out, bias)
    shape = [x.shape[0]] + list(out_spatial) + [c_out]
    return coo(book.out_indices, out, shape, coalesced=True)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NHWC", name=None):
    """2-D convolution of a sparse NHWC tensor by weight [kh, kw, in, out]; the output
    sites are every site some input reaches."""
    return _conv("conv2d", x, weight, bias, stride, padding, dilation, groups, data_format,
                 2, False)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NDHWC", name=None):
    """3-D convolution of a sparse NDHWC tensor by weight [kd, kh, kw, in, out]."""
    return _conv("conv3d", x, weight, bias, stride, padding, dilation, groups, data_format,
                 3, False)


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NHWC", key=None, name=None):
    """Submanifold 2-D convolution: the output keeps x's shape and sites, the kernel
    centred on each (stride and padding do not apply)."""
    return _conv("subm_conv2d", x, weight, bias, stride, padding, dilation, groups,
                 data_format, 2, True)


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                data_format="NDHWC", key=None, name=None):
    """Submanifold 3-D convolution: the output keeps x's shape and sites."""
    return _conv("subm_conv3d", x, weight, bias, stride, padding, dilation, groups,
                 data_format, 3, True)


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NHWC", key=None, name=None):
    """subm_conv2d (the implicit-GEMM kernel choice of Paddle's GPU build)."""
    return subm_conv2d(x, weight, bias, stride, padding, dilation, groups, data_format, key)


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
                      data_format="NDHWC", key=None, name=None):
    """subm_conv3d (the implicit-GEMM kernel choice of Paddle's GPU build)."""
    return subm_conv3d(x, weight, bias, stride, padding, dilation, groups, data_format, key)
