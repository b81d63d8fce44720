"""Pooling layers (paddle.nn.MaxPool2D, AvgPool2D, AdaptiveAvgPool2D,
AdaptiveMaxPool2D)."""
from ...framework.core import eager_op
from ...framework.mode import mode
from .. import functional as F
from ..functional.pooling import _window_attrs
from .layers import Layer

__all__ = ["MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D", "MaxPool2D",
           "AvgPool2D", "AdaptiveAvgPool2D", "AdaptiveMaxPool2D"]


def _fixed_op(layer, kernel_size, stride, padding, ceil_mode, data_format, extra):
    """The eager pool2d op of a layer whose attributes do not depend on the input (NCHW,
    numeric padding), built once: forward then skips recomputing them."""
    if isinstance(padding, str) or data_format != "NCHW":
        return None
    attrs = _window_attrs(None, kernel_size, stride, padding, ceil_mode, data_format,
                          type(layer).__name__)
    attrs.update(extra)
    return eager_op("pool2d", attrs, [1, 1 if extra["pooling_type"] == "max" else 0])


def _run_fixed(op, x):
    """The output of a prebuilt pool op, or None where the general path must run."""
    if op is None or mode.static or len(x.shape) != 4:
        return None
    return op(x)[0]


class MaxPool2D(Layer):
    """Maximum over kernel_size windows moved by stride (kernel_size when None)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.data_format = return_mask, ceil_mode, data_format
        self._op = None if return_mask else _fixed_op(self, kernel_size, stride, padding,
                                                      ceil_mode, data_format,
                                                      {"pooling_type": "max"})

    def forward(self, x):
        out = _run_fixed(self._op, x)
        if out is not None:
            return out
        return F.max_pool2d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(Layer):
    """Mean over kernel_size windows moved by stride (kernel_size when None)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive = ceil_mode, exclusive
        self.divisor, self.data_format = divisor_override, data_format
        self._op = None if divisor_override is not None else _fixed_op(
            self, kernel_size, stride, padding, ceil_mode, data_format,
            {"pooling_type": "avg", "exclusive": bool(exclusive)})

    def forward(self, x):
        out = _run_fixed(self._op, x)
        if out is not None:
            return out
        return F.avg_pool2d(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                            self.exclusive, self.divisor, self.data_format)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2D(Layer):
    """Averages over windows that tile the input into output_size cells."""

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__()
        self._output_size, self._data_format = output_size, data_format

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self._output_size, self._data_format)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveMaxPool2D(Layer):
    """Maxima over windows that tile the input into output_size cells."""

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask = output_size, return_mask

    def forward(self, x):
        return F.adaptive_max_pool2d(x, self._output_size, self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class MaxPool1D(Layer):
    """Maximum over windows of [N, C, L] inputs."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode = return_mask, ceil_mode

    def forward(self, x):
        return F.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AvgPool1D(Layer):
    """Mean over windows of [N, C, L] inputs."""

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode = exclusive, ceil_mode

    def forward(self, x):
        return F.avg_pool1d(x, self.ksize, self.stride, self.padding, self.exclusive,
                            self.ceil_mode)

    def extra_repr(self):
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1D(Layer):
    """Means over output_size windows tiling the length."""

    def __init__(self, output_size, name=None):
        super().__init__()
        self._output_size = output_size

    def forward(self, x):
        return F.adaptive_avg_pool1d(x, self._output_size)

    def extra_repr(self):
        return f"output_size={self._output_size}"


class AdaptiveMaxPool1D(Layer):
    """Maxima over output_size windows tiling the length."""

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._return_mask = output_size, return_mask

    def forward(self, x):
        return F.adaptive_max_pool1d(x, self._output_size, self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"
