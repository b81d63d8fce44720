"""3-D pooling (paddle.nn.functional.max_pool3d, avg_pool3d, adaptive_avg_pool3d,
adaptive_max_pool3d) over the pool3d op."""
from ... import _C
from ... import _C_ops
from ...framework.tensor_params import FLOATING, accepts
from ...tensor.math import scale
from .conv3d import check_input3d, from_ncdhw, spatial_dims3d, to_ncdhw, triple
from .conv3d import window_padding3d

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d"]


def _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format, where):
    kernel = triple(kernel_size, "kernel_size", where)
    stride = kernel if stride is None else triple(stride, "stride", where)
    pads = window_padding3d(padding, x, kernel, stride, data_format, where)
    return {"ksize": kernel, "strides": stride, "paddings": pads, "ceil_mode": bool(ceil_mode)}


def _pool(x, attrs, return_mask, data_format):
    """Runs pool3d; max pooling always makes the mask (its gradient then needs no search)."""
    is_max = attrs["pooling_type"] == "max"
    out, mask = _C_ops.pool3d(to_ncdhw(x, data_format), **attrs,
                              output_counts=[1, 1 if is_max else 0])
    if return_mask:
        return from_ncdhw(out, data_format), from_ncdhw(mask, data_format)
    return from_ncdhw(out, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """The maximum of each window (and, with return_mask, its flat index (d * H + h) * W + w
    in the input volume)."""
    check_input3d(x, "max_pool3d", data_format)
    attrs = _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format,
                          "max_pool3d")
    attrs["pooling_type"] = "max"
    return _pool(x, attrs, return_mask, data_format)


@accepts(x=FLOATING)
def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """The mean of each window: over its input cells (exclusive) or over all its cells
    including padding; ``divisor_override`` divides the window sum by that number."""
    check_input3d(x, "avg_pool3d", data_format)
    attrs = _window_attrs(x, kernel_size, stride, padding, ceil_mode, data_format,
                          "avg_pool3d")
    attrs["pooling_type"] = "avg"
    attrs["exclusive"] = bool(exclusive)
    if divisor_override is None:
        return _pool(x, attrs, False, data_format)
    if ceil_mode:
        raise _C.Error("avg_pool3d: divisor_override with ceil_mode is not supported")
    attrs["exclusive"] = False
    k = attrs["ksize"]
    return scale(_pool(x, attrs, False, data_format), k[0] * k[1] * k[2] / float(divisor_override))


def _adaptive_attrs(x, output_size, data_format, where):
    if isinstance(output_size, (list, tuple)):
        size = list(output_size)
    else:
        size = [output_size] * 3
    if len(size) != 3:
        raise ValueError(f"{where}: output_size must be an int or 3 entries, got {output_size}")
    dims = spatial_dims3d(x, data_format)
    size = [dims[i] if s is None else int(s) for i, s in enumerate(size)]
    if any(s <= 0 for s in size):
        raise ValueError(f"{where}: output_size must be positive, got {size}")
    return {"ksize": size, "adaptive": True}


@accepts(x=FLOATING)
def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Averages over windows that tile the input into ``output_size`` cells (cell i covers
    [floor(i * D / OD), ceil((i + 1) * D / OD)) along each axis)."""
    check_input3d(x, "adaptive_avg_pool3d", data_format)
    attrs = _adaptive_attrs(x, output_size, data_format, "adaptive_avg_pool3d")
    attrs["pooling_type"] = "avg"
    return _pool(x, attrs, False, data_format)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Maxima over the adaptive windows (see adaptive_avg_pool3d)."""
    check_input3d(x, "adaptive_max_pool3d", "NCDHW")
    attrs = _adaptive_attrs(x, output_size, "NCDHW", "adaptive_max_pool3d")
    attrs["pooling_type"] = "max"
    return _pool(x, attrs, return_mask, "NCDHW")
