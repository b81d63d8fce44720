"""1-D convolution and pooling (paddle.nn.functional.conv1d, conv1d_transpose,
max_pool1d, avg_pool1d, adaptive_*_pool1d): the 2-D ops over a height-1 view."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.tensor_params import FLOATING, accepts
from ...tensor.manipulation import squeeze
from .conv import conv2d, conv2d_transpose
from .pooling import adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d

__all__ = ["conv1d", "conv1d_transpose", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
           "adaptive_max_pool1d"]


def _one(value, what, where):
    """An int or a 1-sequence as an int (errors name ``where`` and ``what``)."""
    if value.__class__ is int:
        return value
    return arguments.sizes(where, what, value, 1)[0]


def _padding_2d(padding, where):
    """1-D padding (int, [p], [left, right], 'SAME', 'VALID') as conv2d's form."""
    if isinstance(padding, str):
        return padding
    if isinstance(padding, int):
        return [0, 0, padding, padding]
    padding = [int(p) for p in padding]
    if len(padding) == 1:
        return [0, 0, padding[0], padding[0]]
    if len(padding) == 2:
        return [0, 0, padding[0], padding[1]]
    raise ValueError(f"{where}: padding must be an int, 1 or 2 ints, 'SAME' or 'VALID', got "
                     f"{padding}")


def _to_2d(x, data_format, where):
    """[N, C, L] (or [N, L, C] for 'NLC') as [N, C, 1, L]."""
    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"{where}: data_format must be 'NCL' or 'NLC', got {data_format!r}")
    shape = list(x.shape)
    if len(shape) != 3:
        raise _C.Error(f"{where}: expected a 3-D input [N, C, L] ({data_format}), got shape "
                       f"{shape}")
    if data_format == "NLC":
        x = _C_ops.transpose(x, axis=[0, 2, 1])
    return _C_ops.unsqueeze(x, axes=[2])


def _from_2d(y, data_format):
    y = squeeze(y, [2])
    return _C_ops.transpose(y, axis=[0, 2, 1]) if data_format == "NLC" else y


@accepts(x=FLOATING)
def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """Cross-correlation of ``x`` [N, C, L] with ``weight`` [out, in / groups, k]."""
    x2 = _to_2d(x, data_format, "conv1d")
    out = conv2d(
        x2,
        _C_ops.unsqueeze(weight, axes=[2]),
        bias,
        [1, _one(stride, "stride", "conv1d")],
        _padding_2d(padding, "conv1d"),
        [1, _one(dilation, "dilation", "conv1d")],
        groups,
    )
    return _from_2d(out, data_format)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """The adjoint of conv1d: ``weight`` [in, out / groups, k]."""
    x2 = _to_2d(x, data_format, "conv1d_transpose")
    size = None if output_size is None else [1, _one(output_size, "output_size",
                                                     "conv1d_transpose")]
    out = conv2d_transpose(x2, _C_ops.unsqueeze(weight, axes=[2]), bias,
                           [1, _one(stride, "stride", "conv1d_transpose")],
                           _padding_2d(padding, "conv1d_transpose"),
                           [0, _one(output_padding, "output_padding", "conv1d_transpose")],
                           groups, [1, _one(dilation, "dilation", "conv1d_transpose")],
                           output_size=size)
    return _from_2d(out, data_format)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Maxima over windows of ``x`` [N, C, L]."""
    k = _one(kernel_size, "kernel_size", "max_pool1d")
    s = k if stride is None else _one(stride, "stride", "max_pool1d")
    out = max_pool2d(_to_2d(x, "NCL", "max_pool1d"), [1, k], [1, s],
                     _padding_2d(padding, "max_pool1d"), return_mask, ceil_mode)
    if return_mask:
        return _from_2d(out[0], "NCL"), _from_2d(out[1], "NCL")
    return _from_2d(out, "NCL")


@accepts(x=FLOATING)
def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Means over windows of ``x`` [N, C, L]."""
    k = _one(kernel_size, "kernel_size", "avg_pool1d")
    s = k if stride is None else _one(stride, "stride", "avg_pool1d")
    out = avg_pool2d(_to_2d(x, "NCL", "avg_pool1d"), [1, k], [1, s],
                     _padding_2d(padding, "avg_pool1d"), ceil_mode, exclusive)
    return _from_2d(out, "NCL")


@accepts(x=FLOATING)
def adaptive_avg_pool1d(x, output_size, name=None):
    """Means over ``output_size`` windows tiling the length."""
    size = _one(output_size, "output_size", "adaptive_avg_pool1d")
    return _from_2d(adaptive_avg_pool2d(_to_2d(x, "NCL", "adaptive_avg_pool1d"), [1, size]),
                    "NCL")


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Maxima over ``output_size`` windows tiling the length."""
    size = _one(output_size, "output_size", "adaptive_max_pool1d")
    out = adaptive_max_pool2d(_to_2d(x, "NCL", "adaptive_max_pool1d"), [1, size], return_mask)
    if return_mask:
        return _from_2d(out[0], "NCL"), _from_2d(out[1], "NCL")
    return _from_2d(out, "NCL")
