"""Layers as functions for static programs (Paddle's paddle.static.nn): each call makes
its parameters with skiff.create_parameter (initialised by the startup program) and
appends the ops of skiff.nn.functional."""
import math

from ... import _C
from ...framework.initializer import Constant, Normal
from ...framework.arguments import dtype_name_of
from ...framework.param import ParamAttr, create_parameter, unique_name
from ...nn import functional as F
from ...nn.layer.norm_spectral import SpectralNorm
from ...tensor import manipulation
from .entry import table_config

__all__ = ["fc", "conv2d", "batch_norm", "embedding", "sparse_embedding"]


def _activation(x, act):
    if act is None:
        return x
    fn = getattr(F, act, None)
    if fn is None:
        raise ValueError(f"unknown activation '{act}'")
    return fn(x)


def _param(prefix, suffix, shape, dtype, attr, is_bias=False, default_initializer=None):
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    name = attr.name or f"{prefix}.{suffix}"
    return create_parameter(shape, dtype, name, attr, is_bias, default_initializer)


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """activation(flatten(x) · w + b) with w [features, size]: the dims of ``x`` from
    ``num_flatten_dims`` on are the features. A list ``x`` sums one product per input
    (one weight each) before the bias."""
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    prefix = name or unique_name.generate("fc")
    total = None
    for i, inp in enumerate(inputs):
        shape = list(inp.shape)
        if not 0 < num_flatten_dims < len(shape):
            raise _C.Error(f"fc: num_flatten_dims {num_flatten_dims} must lie in [1, "
                           f"{len(shape)}) for an input of shape {shape}")
        feature_dims = shape[num_flatten_dims:]
        if any(d < 0 for d in feature_dims):
            raise _C.Error(f"fc: the feature dims {feature_dims} of input shape {shape} must "
                           f"be known")
        features = math.prod(feature_dims)
        if len(feature_dims) > 1:
            inp = manipulation.flatten(inp, num_flatten_dims, -1)
        w = _param(prefix, f"w_{i}", [features, size], inp._dtype_name, weight_attr)
        part = F.linear(inp, w)
        total = part if total is None else total + part
    b = _param(prefix, "b_0", [size], inputs[0]._dtype_name, bias_attr, is_bias=True)
    if b is not None:
        total = total + b
    return _activation(total, activation)


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(s) for s in v]


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """A 2-D convolution with weight [num_filters, C / groups, kh, kw] (normal init with
    std sqrt(2 / (C / groups * kh * kw))) and a bias per filter."""
    channels = int(input.shape[1] if data_format == "NCHW" else input.shape[-1])
    if channels < 0 or channels % groups:
        raise _C.Error(f"conv2d: the input's {channels} channels must be known and divisible "
                       f"by groups={groups}")
    kh, kw = _pair(filter_size)
    prefix = name or unique_name.generate("conv2d")
    fan_in = channels // groups * kh * kw
    w = _param(prefix, "w_0", [num_filters, channels // groups, kh, kw], input._dtype_name,
               param_attr, default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
    b = _param(prefix, "b_0", [num_filters], input._dtype_name, bias_attr, is_bias=True)
    out = F.conv2d(input, w, b, stride, padding, dilation, groups, data_format)
    return _activation(out, act)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalisation over the channel dim with a learned scale (ones) and shift
    (zeros) and running statistics (not trained) that training updates in place."""
    channel_last = data_layout in ("NHWC", "NLC", "NDHWC")
    channels = int(input.shape[-1] if channel_last else input.shape[1])
    if channels < 0:
        raise _C.Error(f"batch_norm: the channel dim of input shape {list(input.shape)} must "
                       f"be known")
    prefix = name or unique_name.generate("batch_norm")
    dtype = input._dtype_name
    scale = _param(prefix, "w_0", [channels], dtype, param_attr,
                   default_initializer=Constant(1.0))
    bias = _param(prefix, "b_0", [channels], dtype, bias_attr, is_bias=True)
    stats = []
    for stat_name, suffix, value in ((moving_mean_name, "w_1", 0.0),
                                     (moving_variance_name, "w_2", 1.0)):
        attr = ParamAttr(name=stat_name, initializer=Constant(value), trainable=False)
        stats.append(_param(prefix, suffix, [channels], dtype, attr))
    out = F.batch_norm(input, stats[0], stats[1], scale, bias, training=not is_test,
                       momentum=momentum, epsilon=epsilon, data_format=data_layout,
                       use_global_stats=use_global_stats)
    return _activation(out, act)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Rows of a [size[0], size[1]] table at the ids ``input``; ``is_sparse`` makes the
    table's gradient selected rows; ``is_distributed`` marks the table for the parameter
    servers (skiff.distributed.ps.program), as ``is_sparse`` does there."""
    w = _embedding_table(size, param_attr, dtype, is_distributed)
    return F.embedding(input, w, padding_idx=padding_idx, sparse=is_sparse)


def _embedding_table(size, param_attr, dtype, is_distributed, entry=None):
    w = _param(unique_name.generate("embedding"), "w_0", [int(size[0]), int(size[1])], dtype,
               param_attr)
    if is_distributed:
        w.is_distributed = True
        w.ps_entry = entry
    return w


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,
                     table_class="MemorySparseTable", param_attr=None, dtype="float32",
                     slot=None):
    """Paddle's sparse_embedding: an embedding whose table lives on the parameter servers
    once the program is split (skiff.distributed.ps.program), keyed by any int64 id;
    ``size`` is [rows of the trainer's unsplit table, row width]. ``entry`` (a
    skiff.distributed CountFilterEntry or ProbabilityEntry) admits new ids only when seen
    often enough; before that their rows read zeros. ``slot`` (a feature slot of Paddle's
    CTR accessors) changes nothing."""
    if is_test:
        raise ValueError("sparse_embedding: is_test=True (lookups that make no rows) is not "
                         "supported: skiff's servers give an unseen id its initial row (or "
                         "zeros until an entry admits it); leave is_test False")
    if table_class != "MemorySparseTable":
        raise ValueError(f"sparse_embedding: table_class {table_class!r}; skiff's servers hold "
                         f"tables in memory ('MemorySparseTable')")
    if dtype != "float32":
        raise ValueError(f"sparse_embedding: dtype {dtype!r}; the parameter servers hold "
                         f"float32 rows")
    table_config(entry, "sparse_embedding")  # (checks the entry)
    w = _embedding_table(size, param_attr, dtype, True, entry)
    return F.embedding(input, w, padding_idx=padding_idx, sparse=True)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """weight divided by its largest singular value, estimated by ``power_iters`` power
    iterations from vectors u, v kept as non-trainable parameters (nn.SpectralNorm)."""
    dtype = dtype_name_of(weight)
    return SpectralNorm(list(weight.shape), dim, power_iters, eps, dtype)(weight)
