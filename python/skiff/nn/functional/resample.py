"""Resizing and sliding windows (paddle.nn.functional.interpolate, upsample, unfold, fold)
over the *_interp_v2, pool2d (area mode), unfold and fold ops."""
import numbers
from ... import _C_ops
from ...framework.core import apply
from ...tensor.scalars import is_tensor
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.manipulation import concat, squeeze
from ...tensor.math import cast

__all__ = ["interpolate", "upsample", "unfold", "fold"]

# mode -> (op type, the input rank it takes, or None for 3-D to 5-D)
_MODES = {"nearest": ("nearest_interp_v2", None), "linear": ("linear_interp_v2", 3),
          "bilinear": ("bilinear_interp_v2", 4), "trilinear": ("trilinear_interp_v2", 5),
          "bicubic": ("bicubic_interp_v2", 4), "area": ("pool2d", None)}
_LAYOUTS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_INTS = ("int32", "int64", "uint8", "int8", "int16")


def _layout(rank, data_format, where):
    """True for a channel-last layout; raises ValueError naming a layout the rank lacks."""
    first, last = _LAYOUTS[rank]
    if data_format is None or data_format == first:
        return False
    if data_format == last:
        return True
    raise ValueError(f"{where}: data_format must be '{first}' or '{last}' for a {rank}-D "
                     f"input, got {data_format!r}")


def _positive_list(value, spatial, what, where):
    """An int / float or a sequence of ``spatial`` numbers, each > 0, as a list."""
    values = list(value) if isinstance(value, (list, tuple)) else [value] * spatial
    if len(values) != spatial:
        raise ValueError(f"{where}: {what} must hold {spatial} values for a "
                         f"{spatial + 2}-D input, got {value}")
    for v in values:
        if not is_tensor(v) and not v > 0:
            raise ValueError(f"{where}: {what} must be positive, got {value}")
    return values


def _size_tensor(values):
    """One int32 [spatial] tensor from a list mixing ints and 1-element tensors."""
    parts = [
        _C_ops.reshape(cast(v, "int32"), shape=[1])
        if is_tensor(v)
        else full([1], int(v), "int32")
        for v in values
    ]
    return parts[0] if len(parts) == 1 else concat(parts, 0)


def _adaptive_avg(x, ksize):
    out = _C_ops.pool2d(x, pooling_type="avg", adaptive=True, ksize=ksize, output_counts=[1, 0])
    return out[0] if isinstance(out, tuple) else out


def _area(x, sizes):
    """Adaptive average pooling of channel-first x to ``sizes`` (ints)."""
    shape = [int(s) for s in x.shape]
    if len(sizes) == 1:  # [N, C, W] as [N, C, 1, W]
        return squeeze(
            _adaptive_avg(_C_ops.unsqueeze(x, axes=[2]), [1, sizes[0]]), [2]
        )
    if len(sizes) == 2:
        return _adaptive_avg(x, list(sizes))
    # Adaptive windows are products of per-axis windows: pool (H, W), then (D, cells).
    n, c, d = shape[0], shape[1], shape[2]
    hw = _adaptive_avg(
        _C_ops.reshape(x, shape=[n, c * d, shape[3], shape[4]]), [sizes[1], sizes[2]]
    )
    cells = sizes[1] * sizes[2]
    out = _adaptive_avg(_C_ops.reshape(hw, shape=[n, c, d, cells]), [sizes[0], cells])
    return _C_ops.reshape(out, shape=[int(d) for d in [n, c] + list(sizes)])


def _check_mode(x, mode, align_corners, align_mode, antialias, where):
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise ValueError(f"{where}: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    mode = mode.lower()
    rank = len(x.shape)
    want = _MODES[mode][1]
    if rank not in _LAYOUTS or (want is not None and rank != want):
        need = f"a {want}-D" if want else "a 3-D, 4-D or 5-D"
        raise ValueError(f"{where}: mode {mode!r} needs {need} input, got shape {list(x.shape)}")
    if align_mode not in (0, 1):
        raise ValueError(f"{where}: align_mode must be 0 or 1, got {align_mode!r}")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError(f"{where}: align_corners can only be set with the interpolating modes "
                         f"linear, bilinear, bicubic and trilinear (mode {mode!r})")
    if antialias:
        raise ValueError(f"{where}: antialias=True is not supported")
    return mode


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resizes the spatial dims of a 3-D, 4-D or 5-D x to ``size``, or by ``scale_factor``,
    with Paddle's nearest / linear / bilinear / trilinear / bicubic / area rules."""
    where = "interpolate"
    mode = _check_mode(x, mode, align_corners, align_mode, antialias, where)
    rank = len(x.shape)
    spatial = rank - 2
    channel_last = _layout(rank, data_format, where)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{where}: exactly one of size and scale_factor must be given")
    if channel_last:
        x = _C_ops.transpose(x, axis=list([0, rank - 1] + list(range(1, rank - 1))))
    in_sizes = [int(s) for s in x.shape[2:]]
    sizes = scales = None
    if size is not None:
        sizes = size if is_tensor(size) else _positive_list(size, spatial, "size", where)
    elif is_tensor(scale_factor):
        scales = scale_factor
    else:
        scales = [float(s) for s in _positive_list(scale_factor, spatial, "scale_factor", where)]
        if recompute_scale_factor or mode == "area":
            if any(s < 0 for s in in_sizes):
                raise ValueError(f"{where}: recompute_scale_factor needs known spatial dims, "
                                 f"got shape {list(x.shape)}")
            sizes, scales = [int(i * s) for i, s in zip(in_sizes, scales)], None
    if mode == "area":
        if is_tensor(sizes) or is_tensor(scales):
            raise ValueError(f"{where}: mode 'area' needs the output size as ints")
        out = _area(x, [int(s) for s in sizes])
    else:
        out = _resize(x, mode, sizes, scales, align_corners, align_mode)
    if channel_last:
        out = _C_ops.transpose(out, axis=list([0] + list(range(2, rank)) + [1]))
    return out


def _resize(x, mode, sizes, scales, align_corners, align_mode):
    """Runs the interp_v2 op of ``mode`` on channel-first x (integers by way of float64,
    nearest only)."""
    spatial = len(x.shape) - 2
    attrs = {"data_layout": _LAYOUTS[spatial + 2][0], "align_corners": bool(align_corners),
             "align_mode": int(align_mode), "out_d": -1, "out_h": -1, "out_w": -1, "scale": []}
    out_size = scale = None
    if is_tensor(sizes):
        out_size = _C_ops.reshape(sizes, shape=[-1])
    elif sizes is not None and any(is_tensor(s) for s in sizes):
        out_size = _size_tensor(sizes)
    elif sizes is not None:
        for key, s in zip(("out_d", "out_h", "out_w")[3 - spatial:], sizes):
            attrs[key] = int(s)
    if is_tensor(scales):
        scale = _C_ops.reshape(cast(scales, "float32"), shape=[-1])
    elif scales is not None:
        attrs["scale"] = list(scales)
    dtype = dtype_name_of(x)
    if mode == "nearest" and dtype in _INTS:
        out = apply(_MODES[mode][0], cast(x, "float64"), out_size, scale, attrs=attrs)
        return cast(out, dtype)
    if dtype not in ("float32", "float64"):
        raise TypeError(f"interpolate: x must be float32 or float64 for mode {mode!r}, got "
                        f"{dtype}")
    return apply(_MODES[mode][0], x, out_size, scale, attrs=attrs)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
             data_format=None, name=None):
    """paddle.nn.functional.upsample: interpolate under its older name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def _pairs(value, what, where):
    if isinstance(value, str) or not isinstance(value, (int, list, tuple)) or any(
            isinstance(v, (bool, str)) or not isinstance(v, numbers.Integral)
            for v in ([value] if isinstance(value, int) else value)):
        raise TypeError(f"{where}: {what} must be an int or 2 ints, got {value!r}")
    values = [value, value] if isinstance(value, int) else [int(v) for v in value]
    if len(values) != 2:
        raise ValueError(f"{where}: {what} must be an int or 2 ints, got {value}")
    return values


def _window_attrs(kernel_sizes, strides, paddings, dilations, where):
    if isinstance(paddings, int):
        pads = [paddings] * 4
    else:
        pads = [int(p) for p in paddings]
        if len(pads) == 2:
            pads = pads * 2
        elif len(pads) != 4:
            raise ValueError(f"{where}: paddings must be an int, 2 or 4 ints, got {paddings}")
    return {"kernel_sizes": _pairs(kernel_sizes, "kernel_sizes", where),
            "strides": _pairs(strides, "strides", where), "paddings": pads,
            "dilations": _pairs(dilations, "dilations", where)}


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """The sliding kernel_sizes windows of x [N, C, H, W] as columns [N, C * kh * kw, L];
    paddings are an int, (h, w) or (top, left, bottom, right)."""
    if len(x.shape) != 4:
        raise ValueError(f"unfold: x must be 4-D [N, C, H, W], got shape {list(x.shape)}")
    return _C_ops.unfold(x, **_window_attrs(kernel_sizes, strides, paddings, dilations,
                                                  "unfold"))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """The columns x [N, C * kh * kw, L] summed back into images [N, C, H, W] of
    output_sizes (H, W): the adjoint of unfold."""
    if len(x.shape) != 3:
        raise ValueError(f"fold: x must be 3-D [N, C * kh * kw, L], got shape {list(x.shape)}")
    attrs = _window_attrs(kernel_sizes, strides, paddings, dilations, "fold")
    attrs["output_sizes"] = _pairs(output_sizes, "output_sizes", "fold")
    return _C_ops.fold(x, **attrs)
