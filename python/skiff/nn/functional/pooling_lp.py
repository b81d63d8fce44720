"""Power-average pooling (paddle.nn.functional.lp_pool1d, lp_pool2d): each window's
(sum of x^p)^(1/p), the sum taken by a depthwise convolution with a ones kernel."""
import math

from ... import _C
from ... import _C_ops
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.manipulation import squeeze
from .conv import check_input, conv2d, explicit_padding, from_nchw, pair, same_padding, \
    spatial_dims, to_nchw
from .pooling import max_pool2d

__all__ = ["lp_pool1d", "lp_pool2d"]


def _pads(x, kernel, stride, padding, data_format, where):
    """[top, bottom, left, right] from Paddle's padding forms."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo == "VALID":
            return [0, 0, 0, 0]
        if algo == "SAME":
            hw = spatial_dims(x, data_format)
            return (same_padding(hw[0], kernel[0], stride[0], 1)
                    + same_padding(hw[1], kernel[1], stride[1], 1))
        raise ValueError(f"{where}: padding string must be 'SAME' or 'VALID', got {padding!r}")
    pads = explicit_padding(padding, data_format, where)
    return [pads[0], pads[0], pads[1], pads[1]] if len(pads) == 2 else list(pads)


def _ceil_extra(size, kernel, stride, before, after):
    """Zeros to add after the input so that floor-mode windows match ceil mode (a window
    starting past the input and its leading padding is dropped, as in pool2d)."""
    span = size + before + after - kernel
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + before:
        out -= 1
    return max((out - 1) * stride + kernel - (size + before + after), 0)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """(sum over each window of x^norm_type)^(1 / norm_type); norm_type inf is max
    pooling. Padding cells count as zeros."""
    check_input(x, "lp_pool2d", data_format)
    if norm_type == 0:
        raise ValueError("lp_pool2d: norm_type cannot be 0")
    kernel = pair(kernel_size, "kernel_size", "lp_pool2d")
    stride = kernel if stride is None else pair(stride, "stride", "lp_pool2d")
    if min(kernel) <= 0 or min(stride) <= 0:
        raise ValueError(f"lp_pool2d: kernel_size {kernel} and stride {stride} must be "
                         f"positive")
    p = float(norm_type)
    if math.isinf(p):
        return max_pool2d(x, kernel, stride, padding, False, ceil_mode, data_format)
    pads = _pads(x, kernel, stride, padding, data_format, "lp_pool2d")
    xin = to_nchw(x, data_format)
    shape = [int(s) for s in xin.shape]
    if ceil_mode:
        pads[1] += _ceil_extra(shape[2], kernel[0], stride[0], pads[0], pads[1])
        pads[3] += _ceil_extra(shape[3], kernel[1], stride[1], pads[2], pads[3])
    channels = shape[1]
    if channels < 0:
        raise _C.Error("lp_pool2d: the channel dim of the input must be known")
    ones = full([channels, 1, kernel[0], kernel[1]], 1.0, dtype_name_of(x))
    powered = _C_ops.pow(xin, factor=p)
    sums = conv2d(powered, ones, None, stride, pads, 1, channels)
    return from_nchw(_C_ops.pow(sums, factor=1.0 / p), data_format)


def _one(value, what, where):
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(f"{where}: {what} must be an int or 1 int, got {value}")
        return int(value[0])
    return int(value)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """lp_pool2d over a height-1 view of ``x`` [N, C, L] (or [N, L, C] for 'NLC')."""
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"lp_pool1d: data_format must be 'NCL' or 'NLC', got "
                         f"{data_format!r}")
    if len(x.shape) != 3:
        raise _C.Error(f"lp_pool1d: expected a 3-D input [N, C, L], got shape "
                       f"{list(x.shape)}")
    kernel = _one(kernel_size, "kernel_size", "lp_pool1d")
    stride = kernel if stride is None else _one(stride, "stride", "lp_pool1d")
    if isinstance(padding, str):
        pad2 = padding
    else:
        pad = [int(padding)] * 2 if isinstance(padding, int) else [int(v) for v in padding]
        if len(pad) == 1:
            pad = pad * 2
        if len(pad) != 2:
            raise ValueError(f"lp_pool1d: padding must be an int, 1 or 2 ints, 'SAME' or "
                             f"'VALID', got {padding}")
        pad2 = [0, 0, pad[0], pad[1]]
    x2 = _C_ops.unsqueeze(_C_ops.transpose(x, axis=[0, 2, 1]) if data_format == "NLC" else x,
                          axes=[2])
    y = lp_pool2d(x2, norm_type, [1, kernel], [1, stride], pad2, ceil_mode)
    y = squeeze(y, [2])
    return _C_ops.transpose(y, axis=[0, 2, 1]) if data_format == "NLC" else y
