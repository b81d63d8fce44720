"""Building blocks the vision models share: a conv-norm-activation stack and the rounding
of scaled channel counts."""
from ... import nn
from ...framework import arguments


def make_divisible(value, divisor=8, min_value=None):
    """``value`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``,
    default ``divisor``), raised by one ``divisor`` when rounding lost more than 10%."""
    floor = divisor if min_value is None else min_value
    rounded = max(floor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D, then ``norm_layer(out_channels)`` and ``activation_layer()`` (each skipped
    when None), as one Sequential "0", "1", "2". padding None keeps the spatial size at
    stride 1; bias None: the conv has a bias only without a norm layer."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1,
                 bias=None):
        if padding is None:
            if not isinstance(kernel_size, int) or not isinstance(dilation, int):
                raise arguments.ArgumentError(
                    "ConvNormActivation: padding must be given for a kernel_size or dilation "
                    f"that is not an int, got kernel_size {kernel_size!r}")
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups,
                            bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
