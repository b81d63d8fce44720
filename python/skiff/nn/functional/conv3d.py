"""3-D convolution and transposed convolution (paddle.nn.functional.conv3d,
conv3d_transpose) over the conv3d / conv3d_transpose ops, with Paddle's padding forms."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...tensor.math import add
from .conv import check_input_layout, same_padding

__all__ = ["conv3d", "conv3d_transpose"]

_LAYOUTS = ("NCDHW", "NDHWC")


def triple(value, what, where):
    """An int or a 3-sequence as a list of three ints (errors name ``where`` and ``what``)."""
    if value.__class__ is int:
        return [value, value, value]
    return arguments.sizes(where, what, value, 3)


def check_input3d(x, where, data_format, channels=None):
    """Raises a skiff.Error naming ``where`` unless x is 5-D (with ``channels`` channels)."""
    check_input_layout(x, where, data_format, _LAYOUTS, channels)


def spatial_dims3d(x, data_format):
    shape = [int(s) for s in x.shape]
    return shape[2:] if data_format == "NCDHW" else shape[1:4]


def to_ncdhw(x, data_format):
    return x if data_format == "NCDHW" else _C_ops.transpose(x, axis=[0, 4, 1, 2, 3])


def from_ncdhw(x, data_format):
    return x if data_format == "NCDHW" else _C_ops.transpose(x, axis=[0, 2, 3, 4, 1])


def explicit_padding3d(padding, data_format, where):
    """Paddle's numeric padding forms (int, 3 ints, 6 ints, or five [before, after] pairs
    including the batch and channel dims) as the op's list of 3 or 6."""
    if isinstance(padding, int):
        return [padding] * 3
    padding = list(padding)
    if len(padding) == 5 and all(isinstance(p, (list, tuple)) for p in padding):
        spatial = padding[2:] if data_format == "NCDHW" else padding[1:4]
        other = padding[:2] if data_format == "NCDHW" else [padding[0], padding[4]]
        if any(int(v) != 0 for p in other for v in p):
            raise ValueError(f"{where}: the batch and channel dims cannot be padded: "
                             f"{padding}")
        return [int(v) for p in spatial for v in p]
    if len(padding) in (3, 6) and not any(isinstance(p, (list, tuple)) for p in padding):
        return [int(p) for p in padding]
    raise ValueError(f"{where}: padding must be an int, 3 or 6 ints, 5 pairs, 'SAME' or "
                     f"'VALID', got {padding}")


def window_padding3d(padding, x, kernel, stride, data_format, where):
    """The op's paddings for a window op (convolution or pooling) from any Paddle form;
    'SAME' gives ceil(size / stride) outputs (dilation 1)."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo == "VALID":
            return [0, 0, 0]
        if algo == "SAME":
            dims = spatial_dims3d(x, data_format)
            pads = []
            for size, k, s in zip(dims, kernel, stride):
                pads += same_padding(size, k, s, 1)
            return pads
        raise ValueError(f"{where}: padding string must be 'SAME' or 'VALID', got {padding!r}")
    return explicit_padding3d(padding, data_format, where)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """Cross-correlation of ``x`` with ``weight`` [out, in / groups, kd, kh, kw], plus
    ``bias``."""
    w_shape = [int(s) for s in weight.shape]
    if len(w_shape) != 5:
        raise _C.Error(f"conv3d: weight must be 5-D [out, in / groups, kd, kh, kw], got "
                       f"shape {w_shape}")
    check_input3d(x, "conv3d", data_format, w_shape[1] * groups)
    stride = triple(stride, "stride", "conv3d")
    dilation = triple(dilation, "dilation", "conv3d")
    pads = window_padding3d(padding, x, w_shape[2:], stride, data_format, "conv3d")
    if isinstance(padding, str) and padding.upper() == "SAME":
        dilation = [1, 1, 1]
    attrs = {"strides": stride, "paddings": pads, "dilations": dilation, "groups": int(groups),
             "data_format": "NCDHW"}
    out = _C_ops.conv3d(to_ncdhw(x, data_format), weight, bias, **attrs)
    return from_ncdhw(out, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """The adjoint of conv3d: ``weight`` [in, out / groups, kd, kh, kw]; ``output_size`` (or
    ``output_padding``) picks among the output sizes a stride allows."""
    where = "conv3d_transpose"
    w_shape = [int(s) for s in weight.shape]
    if len(w_shape) != 5:
        raise _C.Error(f"{where}: weight must be 5-D [in, out / groups, kd, kh, kw], got "
                       f"shape {w_shape}")
    check_input3d(x, where, data_format, w_shape[0])
    stride = triple(stride, "stride", where)
    dilation = triple(dilation, "dilation", where)
    kernel = w_shape[2:]
    if isinstance(padding, str) and padding.upper() == "SAME":
        pads = []
        for k, s in zip(kernel, stride):
            total = max(k - s, 0)
            pads += [total // 2, total - total // 2]
        dilation = [1, 1, 1]
    elif isinstance(padding, str) and padding.upper() == "VALID":
        pads = [0, 0, 0]
    else:
        pads = explicit_padding3d(padding, data_format, where)
    if len(pads) == 3:
        pads = [pads[0], pads[0], pads[1], pads[1], pads[2], pads[2]]
    extra = triple(output_padding, "output_padding", where)
    if output_size is not None:
        want = triple(output_size, "output_size", where)
        dims = spatial_dims3d(x, data_format)
        for i in range(3):
            base = ((dims[i] - 1) * stride[i] - pads[2 * i] - pads[2 * i + 1]
                    + dilation[i] * (kernel[i] - 1) + 1)
            extra[i] = want[i] - base
            if not 0 <= extra[i] < max(stride[i], dilation[i]):
                raise _C.Error(f"{where}: output_size {want} cannot be reached from input "
                               f"{list(x.shape)} (sizes {base}..{base + stride[i] - 1} along "
                               f"spatial dim {i})")
    attrs = {"strides": stride, "paddings": pads, "dilations": dilation, "groups": int(groups),
             "output_padding": extra if any(extra) else [], "data_format": "NCDHW"}
    out = _C_ops.conv3d_transpose(to_ncdhw(x, data_format), weight, **attrs)
    if bias is not None:
        out = add(out, _C_ops.reshape(bias, shape=[1, -1, 1, 1, 1]))
    return from_ncdhw(out, data_format)
