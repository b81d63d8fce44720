"""2-D pooling (paddle.nn.functional.max_pool2d, avg_pool2d, adaptive_*) over the
pool2d op."""
from ... import _C
from ... import _C_ops
from ...framework.tensor_params import FLOATING, accepts
from ...tensor.math import scale
from .conv import check_input, explicit_padding, from_nchw, pair, same_padding, spatial_dims
from .conv import to_nchw

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d"]


def _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, where):
    kernel = pair(kernel_size, "kernel_size", where)
    stride = kernel if stride is None else pair(stride, "stride", where)
    if isinstance(padding, str):
        algo = padding.upper()
        if algo == "VALID":
            pads = [0, 0]
        elif algo == "SAME":
            hw = spatial_dims(x, data_format)
            pads = (same_padding(hw[0], kernel[0], stride[0], 1)
                    + same_padding(hw[1], kernel[1], stride[1], 1))
        else:
            raise ValueError(f"{where}: padding string must be 'SAME' or 'VALID', got "
                             f"{padding!r}")
    else:
        pads = explicit_padding(padding, data_format, where)
    return {"ksize": kernel, "strides": stride, "paddings": pads, "ceil_mode": bool(ceil_mode)}


def _pool(x, attrs, return_mask, data_format):
    """Runs pool2d; max pooling always makes the mask (its gradient then needs no search)."""
    xin = to_nchw(x, data_format)
    is_max = attrs["pooling_type"] == "max"
    out, mask = _C_ops.pool2d(xin, **attrs, output_counts=[1, 1 if is_max else 0])
    if return_mask:
        return from_nchw(out, data_format), from_nchw(mask, data_format)
    return from_nchw(out, data_format)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """The maximum of each window (and, with return_mask, its flat index h * W + w in the
    input plane)."""
    check_input(x, "max_pool2d", data_format)
    attrs = _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format,
                          "max_pool2d")
    attrs["pooling_type"] = "max"
    return _pool(x, attrs, return_mask, data_format)


@accepts(x=FLOATING)
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """The mean of each window: over its input cells (exclusive) or over all its cells
    including padding; ``divisor_override`` divides the window sum by that number."""
    check_input(x, "avg_pool2d", data_format)
    attrs = _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format,
                          "avg_pool2d")
    attrs["pooling_type"] = "avg"
    attrs["exclusive"] = bool(exclusive)
    if divisor_override is None:
        return _pool(x, attrs, False, data_format)
    if ceil_mode:
        raise _C.Error("avg_pool2d: divisor_override with ceil_mode is not supported")
    attrs["exclusive"] = False
    area = attrs["ksize"][0] * attrs["ksize"][1]
    return scale(_pool(x, attrs, False, data_format), area / float(divisor_override))


def _adaptive_attrs(x, output_size, data_format, where):
    size = pair(output_size, "output_size", where) if not isinstance(output_size, (list, tuple)) \
        else list(output_size)
    if len(size) != 2:
        raise ValueError(f"{where}: output_size must be an int or 2 entries, got {output_size}")
    hw = spatial_dims(x, data_format)
    size = [hw[i] if s is None else int(s) for i, s in enumerate(size)]
    if any(s <= 0 for s in size):
        raise ValueError(f"{where}: output_size must be positive, got {size}")
    return {"ksize": size, "adaptive": True}


@accepts(x=FLOATING)
def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Averages over output_size[0] x output_size[1] windows that tile the input
    (cell i covers [floor(i * H / OH), ceil((i + 1) * H / OH)))."""
    check_input(x, "adaptive_avg_pool2d", data_format)
    attrs = _adaptive_attrs(x, output_size, data_format, "adaptive_avg_pool2d")
    attrs["pooling_type"] = "avg"
    return _pool(x, attrs, False, data_format)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Maxima over the adaptive windows (see adaptive_avg_pool2d)."""
    check_input(x, "adaptive_max_pool2d", "NCHW")
    attrs = _adaptive_attrs(x, output_size, "NCHW", "adaptive_max_pool2d")
    attrs["pooling_type"] = "max"
    return _pool(x, attrs, return_mask, "NCHW")
