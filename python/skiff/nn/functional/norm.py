"""Normalisation functions (paddle.nn.functional.batch_norm, layer_norm, normalize)."""
from ... import _C
from ... import _C_ops
from ..._C import Tensor
from ...framework import arguments
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.manipulation import slice
from ...tensor.math import add, cast, multiply, scale
from .padding import pad

__all__ = ["batch_norm", "layer_norm", "normalize", "group_norm", "instance_norm", "rms_norm",
           "local_response_norm"]

_CHANNEL_LAST = {"NHWC": [0, 3, 1, 2], "NLC": [0, 2, 1], "NDHWC": [0, 4, 1, 2, 3]}
_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """Normalises each channel of ``x`` by the batch statistics (training) or by the
    running ones, then scales by ``weight`` and shifts by ``bias``. In training the
    running statistics are updated in place: running = momentum * running +
    (1 - momentum) * batch."""
    shape = list(x.shape)
    if len(shape) < 2 or len(shape) > 5:
        raise _C.Error(f"batch_norm: expected an input of 2 to 5 dims [N, C, ...], got shape "
                       f"{shape}")
    perm = _CHANNEL_LAST.get(data_format)
    channels = int(shape[-1] if perm else shape[1])
    if channels >= 0 and int(running_mean.shape[0]) != channels:
        raise _C.Error(f"batch_norm: the input has {channels} channels ({data_format}, shape "
                       f"{shape}) but the running statistics have {int(running_mean.shape[0])}")
    dtype = dtype_name_of(x)
    if weight is None:
        weight = full([channels], 1.0, dtype)
    if bias is None:
        bias = full([channels], 0.0, dtype)
    if use_global_stats is None:
        use_global_stats = not training
    xin = _C_ops.transpose(x, axis=perm) if perm else x
    try:
        attrs = {"epsilon": float(epsilon), "momentum": float(momentum), "is_test": not training,
                 "use_global_stats": bool(use_global_stats)}
    except (TypeError, ValueError):
        arguments.explain_numbers("batch_norm", epsilon=epsilon, momentum=momentum)
        raise
    outs = _C_ops.batch_norm(xin, weight, bias, running_mean, running_var, **attrs,
                             out=[None, running_mean, running_var, None, None])
    y = outs[0]
    for stat in (running_mean, running_var):  # statistics, not part of the gradient graph
        if isinstance(stat, Tensor):
            stat._detach_history()
            stat.stop_gradient = True
    if perm:
        inverse = [perm.index(i) for i in range(len(perm))]
        y = _C_ops.transpose(y, axis=inverse)
    return y


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalises ``x`` over its trailing dims ``normalized_shape`` (mean 0, variance 1),
    then scales by ``weight`` and shifts by ``bias`` (each of those dims, or flattened)."""
    normalized_shape = arguments.shape("layer_norm", normalized_shape, "normalized_shape")
    shape = [int(s) for s in x.shape]
    n = len(normalized_shape)
    if n == 0 or n > len(shape) or any(
            a >= 0 and a != b for a, b in zip(shape[len(shape) - n:], normalized_shape)):
        raise _C.Error(f"layer_norm: normalized_shape {normalized_shape} does not match the "
                       f"trailing dims of the input shape {shape}")
    if weight is not None and len(weight.shape) != 1:
        weight = _C_ops.reshape(weight, shape=[-1])
    if bias is not None and len(bias.shape) != 1:
        bias = _C_ops.reshape(bias, shape=[-1])
    if epsilon.__class__ is not float:
        epsilon = arguments.number("layer_norm", "epsilon", epsilon)
    attrs = {"begin_norm_axis": len(shape) - n, "epsilon": epsilon}
    return _C_ops.layer_norm(x, weight, bias, **attrs, output_counts=[1, 1, 1])[0]


@accepts(x=FLOATING)
def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p, epsilon) along ``axis``."""
    axis = arguments.axis("normalize", axis, len(x.shape), scalar=True)
    p = arguments.number("normalize", "p", p)
    if p == 0:
        raise arguments.ArgumentError("normalize: p must not be 0 (the norm takes 1 / p)")
    epsilon = arguments.number("normalize", "epsilon", epsilon)
    if p == 2:
        squares = _C_ops.reduce_sum(_C_ops.square(x), dim=[axis], keep_dim=True, reduce_all=False)
        norm = _C_ops.sqrt(squares)
    else:
        powered = _C_ops.pow(_C_ops.abs(x), factor=float(p))
        norm = _C_ops.pow(_C_ops.reduce_sum(powered, dim=[axis], keep_dim=True, reduce_all=False),
                          factor=1.0 / float(p))
    norm = _C_ops.clip(norm, min=float(epsilon))
    return _C_ops.elementwise_div(x, norm)


def _normalize_rows(x, rows_shape, epsilon):
    """Normalises ``x`` viewed as ``rows_shape`` over its last dim (the layer_norm op
    without scale and bias), returned in x's shape."""
    shape = [int(s) for s in x.shape]
    y = _C_ops.layer_norm(_C_ops.reshape(x, shape=rows_shape), None, None, begin_norm_axis=2,
                          epsilon=float(epsilon), output_counts=[1, 1, 1])[0]
    return _C_ops.reshape(y, shape=[0] + shape[1:])


def _channel_affine(y, weight, bias, rank):
    shape = [1, -1] + [1] * (rank - 2)
    if weight is not None:
        y = multiply(y, _C_ops.reshape(weight, shape=shape))
    if bias is not None:
        y = add(y, _C_ops.reshape(bias, shape=shape))
    return y


def _channels_first(x, data_format, where):
    arguments.choice(where, "data_format", data_format, _FORMATS)
    shape = list(x.shape)
    if len(shape) < 3:
        raise _C.Error(f"{where}: expected an input [N, C, ...] of rank 3 to 5, got shape "
                       f"{shape}")
    if data_format[1] == "C":
        return x, None
    perm = [0, len(shape) - 1] + list(range(1, len(shape) - 1))
    return _C_ops.transpose(x, axis=perm), [perm.index(i) for i in range(len(perm))]


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    """Normalises each group of num_groups channel groups over its channels and spatial
    dims, then scales and shifts per channel."""
    num_groups = arguments.count("group_norm", "num_groups", num_groups, low=1)
    epsilon = arguments.number("group_norm", "epsilon", epsilon)
    xin, back = _channels_first(x, data_format, "group_norm")
    channels = int(xin.shape[1])
    if channels % num_groups:
        raise _C.Error(f"group_norm: {channels} channels do not split into {num_groups} "
                       f"groups (input shape {list(x.shape)})")
    y = _normalize_rows(xin, [0, num_groups, -1], epsilon)
    y = _channel_affine(y, weight, bias, len(xin.shape))
    return y if back is None else _C_ops.transpose(y, axis=back)


@accepts(x=FLOATING)
def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalises each channel of each sample over its spatial dims, then scales and
    shifts per channel."""
    if not use_input_stats:
        raise _C.Error("instance_norm: use_input_stats=False (running statistics) is not "
                       "supported")
    xin, back = _channels_first(x, data_format, "instance_norm")
    y = _normalize_rows(xin, [0, int(xin.shape[1]), -1],
                        arguments.number("instance_norm", "eps", eps))
    y = _channel_affine(y, weight, bias, len(xin.shape))
    return y if back is None else _C_ops.transpose(y, axis=back)


def rms_norm(input, normalized_shape, weight=None, eps=1e-05, name=None):
    """(out, invvar): out = input / sqrt(mean(input^2) + eps) * weight over the trailing
    dims ``normalized_shape``; invvar [rows] (float32) is 1 / sqrt(mean(input^2) + eps)."""
    normalized_shape = arguments.shape("rms_norm", normalized_shape, "normalized_shape")
    eps = arguments.number("rms_norm", "eps", eps)
    shape = [int(s) for s in input.shape]
    n = len(normalized_shape)
    if n == 0 or n > len(shape) or any(
            a >= 0 and a != b for a, b in zip(shape[len(shape) - n:], normalized_shape)):
        raise ValueError(f"rms_norm: normalized_shape {normalized_shape} does not match the "
                         f"trailing dims of the input shape {shape}")
    axes = list(range(len(shape) - n, len(shape)))
    mean_square = _C_ops.reduce_mean(_C_ops.square(input), dim=axes, keep_dim=True,
                                     reduce_all=False)
    inv = _C_ops.rsqrt(scale(mean_square, 1.0, eps))
    out = multiply(input, inv)
    if weight is not None:
        out = multiply(out, weight)
    invvar = _C_ops.reshape(inv, shape=[-1])
    if dtype_name_of(invvar) != "float32":
        invvar = cast(invvar, "float32")
    return out, invvar


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW",
                        name=None):
    """x / (k + alpha * avg(x^2))^beta, the average taken over a window of ``size``
    channels around each channel (zeros beyond the edges count)."""
    arguments.choice("local_response_norm", "data_format", data_format, _FORMATS)
    size = arguments.count("local_response_norm", "size", size, low=1)
    alpha, beta, k = (arguments.number("local_response_norm", p, v)
                      for p, v in (("alpha", alpha), ("beta", beta), ("k", k)))
    rank = len(x.shape)
    if rank < 3:
        raise ValueError(f"local_response_norm: expected an input of 3 or more dims, got shape "
                         f"{list(x.shape)}")
    axis = rank - 1 if data_format[-1] == "C" else 1
    channels = int(x.shape[axis])
    pads = [0] * (2 * rank)
    pads[2 * axis], pads[2 * axis + 1] = size // 2, (size - 1) // 2
    squares = pad(_C_ops.square(x), pads, "constant", 0.0)
    window = None
    for i in range(size):
        part = slice(squares, [axis], [i], [i + channels])
        window = part if window is None else add(window, part)
    denom = _C_ops.pow(scale(window, alpha / size, k), factor=beta)
    return _C_ops.elementwise_div(x, denom)
