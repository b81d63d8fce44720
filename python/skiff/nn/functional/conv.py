"""2-D convolution and transposed convolution (paddle.nn.functional.conv2d,
conv2d_transpose) over the conv2d / conv2d_transpose ops, with Paddle's padding forms."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...tensor.math import add

__all__ = ["conv2d", "conv2d_transpose"]


def pair(value, what, where):
    """An int or a 2-sequence as a list of two ints (errors name ``where`` and ``what``)."""
    if value.__class__ is int:
        return [value, value]
    return arguments.sizes(where, what, value, 2)


def same_padding(size, kernel, stride, dilation):
    """[before, after] padding of 'SAME': the output has ceil(size / stride) entries."""
    if size < 0:
        raise _C.Error("padding='SAME' needs the spatial dims of the input to be known")
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return [total // 2, total - total // 2]


def explicit_padding(padding, data_format, where):
    """Paddle's padding forms (int, [ph, pw], [top, bottom, left, right], or four
    [before, after] pairs including the batch and channel dims) as the op's list."""
    if padding.__class__ is int:
        return [padding, padding]
    if isinstance(padding, (list, tuple)) and len(padding) == 4 and \
            all(isinstance(p, (list, tuple)) for p in padding):
        pairs = [arguments.sizes(where, f"padding[{i}]", p, 2) for i, p in enumerate(padding)]
        spatial = pairs[2:] if data_format == "NCHW" else pairs[1:3]
        other = pairs[:2] if data_format == "NCHW" else [pairs[0], pairs[3]]
        if any(v != 0 for p in other for v in p):
            raise arguments.ArgumentError(f"{where}: the batch and channel dims cannot be "
                                          f"padded: {padding}")
        return spatial[0] + spatial[1]
    padding = arguments.integers(where, "padding", padding)
    if len(padding) in (2, 4):
        return padding
    raise arguments.ArgumentError(f"{where}: padding must be an int, 2 or 4 ints, 'SAME' or "
                                  f"'VALID', got {padding}")


def resolve_padding(padding, x, kernel, stride, dilation, data_format, where):
    """(paddings, dilation) for the op; 'SAME' also sets the dilation to 1 (as Paddle)."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo == "VALID":
            return [0, 0], dilation
        if algo == "SAME":
            hw = spatial_dims(x, data_format)
            pads = (same_padding(hw[0], kernel[0], stride[0], 1)
                    + same_padding(hw[1], kernel[1], stride[1], 1))
            return pads, [1, 1]
        raise arguments.ArgumentError(f"{where}: padding string must be 'SAME' or 'VALID', "
                                      f"got {padding!r}")
    return explicit_padding(padding, data_format, where), dilation


def spatial_dims(x, data_format):
    shape = list(x.shape)
    return [int(shape[2]), int(shape[3])] if data_format == "NCHW" else [int(shape[1]),
                                                                          int(shape[2])]


def check_input_layout(x, where, data_format, layouts, channels=None):
    """Raises naming ``where`` unless data_format is one of ``layouts`` (channels first, then
    last, e.g. ("NCHW", "NHWC")) and x has its rank (and ``channels`` channels)."""
    first, last = layouts
    if data_format not in layouts:
        raise ValueError(f"{where}: data_format must be '{first}' or '{last}', got "
                         f"{data_format!r}")
    shape, rank = list(x.shape), len(first)
    if len(shape) != rank:
        dims = ", ".join(["N", "C"] + list(first[2:]))
        raise _C.Error(f"{where}: expected a {rank}-D input [{dims}] ({data_format}), got "
                       f"shape {shape}")
    c = shape[1] if data_format == first else shape[-1]
    if channels is not None and c >= 0 and c != channels:
        raise _C.Error(f"{where}: the input has {c} channels, expected {channels} (input shape "
                       f"{shape}, {data_format})")


def check_input(x, where, data_format, channels=None):
    """Raises a skiff.Error naming ``where`` unless x is 4-D (with ``channels`` channels)."""
    check_input_layout(x, where, data_format, ("NCHW", "NHWC"), channels)


def to_nchw(x, data_format):
    return x if data_format == "NCHW" else _C_ops.transpose(x, axis=[0, 3, 1, 2])


def from_nchw(x, data_format):
    return x if data_format == "NCHW" else _C_ops.transpose(x, axis=[0, 2, 3, 1])


def _check_weight(where, shape, rank=4):
    """Raises naming ``where`` unless the weight's shape has ``rank`` dims."""
    if len(shape) != rank:
        raise _C.Error(f"{where}: weight must be {rank}-D [out, in / groups, kernel dims...], "
                       f"got shape {shape}")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """Cross-correlation of ``x`` with ``weight`` [out, in / groups, kh, kw], plus ``bias``."""
    w_shape = [int(s) for s in weight.shape]
    if groups.__class__ is not int:
        groups = arguments.count("conv2d", "groups", groups, low=1)
    _check_weight("conv2d", w_shape)
    check_input(x, "conv2d", data_format, w_shape[1] * groups)
    stride = pair(stride, "stride", "conv2d")
    dilation = pair(dilation, "dilation", "conv2d")
    pads, dilation = resolve_padding(padding, x, w_shape[2:], stride, dilation, data_format,
                                     "conv2d")
    attrs = {"strides": stride, "paddings": pads, "dilations": dilation, "groups": int(groups)}
    out = _C_ops.conv2d(to_nchw(x, data_format), weight, bias, **attrs)
    return from_nchw(out, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, data_format="NCHW", output_size=None, name=None):
    """The adjoint of conv2d: ``weight`` [in, out / groups, kh, kw]; ``output_size`` (or
    ``output_padding``) picks among the output sizes a stride allows."""
    w_shape = [int(s) for s in weight.shape]
    if groups.__class__ is not int:
        groups = arguments.count("conv2d_transpose", "groups", groups, low=1)
    _check_weight("conv2d_transpose", w_shape)
    check_input(x, "conv2d_transpose", data_format, w_shape[0])
    stride = pair(stride, "stride", "conv2d_transpose")
    dilation = pair(dilation, "dilation", "conv2d_transpose")
    kernel = w_shape[2:]
    if isinstance(padding, str) and padding.upper() == "SAME":
        pads = []
        for k, s in zip(kernel, stride):
            total = max(k - s, 0)
            pads += [total // 2, total - total // 2]
        dilation = [1, 1]
    else:
        pads, dilation = resolve_padding(padding, x, kernel, stride, dilation, data_format,
                                         "conv2d_transpose")
    if len(pads) == 2:
        pads = [pads[0], pads[0], pads[1], pads[1]]
    extra = pair(output_padding, "output_padding", "conv2d_transpose")
    if output_size is not None:
        want = pair(output_size, "output_size", "conv2d_transpose")
        hw = spatial_dims(x, data_format)
        for i in range(2):
            base = ((hw[i] - 1) * stride[i] - pads[2 * i] - pads[2 * i + 1]
                    + dilation[i] * (kernel[i] - 1) + 1)
            extra[i] = want[i] - base
            if not 0 <= extra[i] < max(stride[i], dilation[i]):
                raise _C.Error(f"conv2d_transpose: output_size {want} cannot be reached from "
                               f"input {list(x.shape)} (sizes {base}..{base + stride[i] - 1} "
                               f"along dim {i})")
    attrs = {"strides": stride, "paddings": pads, "dilations": dilation, "groups": int(groups),
             "output_padding": extra if any(extra) else []}
    out = _C_ops.conv2d_transpose(to_nchw(x, data_format), weight, **attrs)
    if bias is not None:
        out = add(out, _C_ops.reshape(bias, shape=[1, -1, 1, 1]))
    return from_nchw(out, data_format)
