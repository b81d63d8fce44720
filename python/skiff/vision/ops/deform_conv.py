"""Deformable convolution v1 / v2 (paddle.vision.ops.deform_conv2d, DeformConv2D): each kernel
tap reads x at its grid position moved by a learned offset (bilinear, zero outside the map),
scaled by an optional mask, then the taps meet the weight in one matmul per group. Built from
gathers and matmuls, so autograd gives the gradients of x, offset, mask, weight and bias."""
import math

from ...framework import arguments
from ... import tensor as T
from ...nn.initializer import Normal
from ...nn.layer.layers import Layer

__all__ = ["deform_conv2d", "DeformConv2D"]


def _check(fn, x, offset, weight, bias, mask, groups, deformable_groups, kernel, out_hw):
    for param, t in (("x", x), ("offset", offset), ("weight", weight)):
        arguments.tensor(fn, param, t)
        arguments.dtype_in(fn, param, t, ("float32", "float64"))
        if len(t.shape) != 4:
            raise arguments.ArgumentError(f"{fn}: {param} must be 4-D, got shape "
                                          f"{list(t.shape)}")
    n, c = int(x.shape[0]), int(x.shape[1])
    out_c, in_per_group = int(weight.shape[0]), int(weight.shape[1])
    if in_per_group * groups != c:
        raise arguments.ArgumentError(
            f"{fn}: x has {c} channels but weight {list(weight.shape)} with groups={groups} "
            f"takes {in_per_group * groups}")
    if out_c % groups:
        raise arguments.ArgumentError(f"{fn}: weight's out channels ({out_c}) must be a "
                                      f"multiple of groups ({groups})")
    for what, count in (("x's channels", c), ("weight's out channels", out_c)):
        if count % deformable_groups:
            raise arguments.ArgumentError(f"{fn}: {what} ({count}) must be a multiple of "
                                          f"deformable_groups ({deformable_groups})")
    if out_hw[0] < 1 or out_hw[1] < 1:
        raise arguments.ArgumentError(f"{fn}: the output would be {out_hw[0]}x{out_hw[1]}: "
                                      f"the kernel does not fit the padded input")
    k = kernel[0] * kernel[1]
    want = [n, 2 * deformable_groups * k] + out_hw
    if list(offset.shape) != want:
        raise arguments.ArgumentError(f"{fn}: offset must have shape {want} (N, 2 * "
                                      f"deformable_groups * kh * kw, H_out, W_out), got "
                                      f"{list(offset.shape)}")
    if mask is not None:
        arguments.tensor(fn, "mask", mask)
        want = [n, deformable_groups * k] + out_hw
        if list(mask.shape) != want:
            raise arguments.ArgumentError(f"{fn}: mask must have shape {want} (N, "
                                          f"deformable_groups * kh * kw, H_out, W_out), got "
                                          f"{list(mask.shape)}")
    if bias is not None:
        arguments.tensor(fn, "bias", bias)
        if list(bias.shape) != [out_c]:
            raise arguments.ArgumentError(f"{fn}: bias must have shape [{out_c}], got "
                                          f"{list(bias.shape)}")


def _taps(size, out, kernel, stride, padding, dilation, dtype):
    """The undeformed positions [K, out] along one axis: o * stride - padding + i * dilation
    for the kernel's taps (kernel[0] taps along H repeated over W's, or the converse)."""
    base = T.arange(out, dtype=dtype) * float(stride) - float(padding)
    return base.unsqueeze(0) + T.arange(kernel, dtype=dtype).unsqueeze(1) * float(dilation)


def _sample(rows, n, dg, k, h, w, ys, xs):
    """Bilinear samples of x's rows [N * dg * H * W, Cg] at ys, xs [N, dg, K, Ho, Wo]
    (a corner outside the map reads 0, a point beyond (-1, size) is 0): [N, dg, K, L, Cg]."""
    inside = T.cast(T.logical_and(T.logical_and(ys > -1.0, ys < float(h)),
                                  T.logical_and(xs > -1.0, xs < float(w))), ys.dtype)
    y0, x0 = T.floor(ys), T.floor(xs)
    fy, fx = ys - y0, xs - x0
    images = T.arange(n * dg, dtype="int64").reshape([n, dg, 1, 1, 1]) * (h * w)
    cg = int(rows.shape[1])
    out = None
    for dy, wy in ((0.0, 1.0 - fy), (1.0, fy)):
        for dx, wx in ((0.0, 1.0 - fx), (1.0, fx)):
            yc, xc = y0 + dy, x0 + dx
            valid = T.logical_and(T.logical_and(yc >= 0.0, yc <= h - 1.0),
                                  T.logical_and(xc >= 0.0, xc <= w - 1.0))
            index = images + T.cast(T.clip(yc, 0.0, h - 1.0) * w + T.clip(xc, 0.0, w - 1.0),
                                    "int64")
            weight = wy * wx * T.cast(valid, ys.dtype) * inside
            picked = T.gather(rows, index.reshape([-1]), axis=0)
            term = picked.reshape([n, dg, k, -1, cg]) * weight.reshape([n, dg, k, -1, 1])
            out = term if out is None else out + term
    return out


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    """Deformable 2-D convolution of x [N, C, H, W] with weight [C_out, C / groups, kh, kw]:
    tap (i, j) at output (p, q) reads x at (p * stride - padding + i * dilation + dy,
    q * stride - padding + j * dilation + dx), (dy, dx) from offset, times mask if given."""
    fn = "deform_conv2d"
    stride = arguments.sizes(fn, "stride", stride, 2)
    padding = arguments.sizes(fn, "padding", padding, 2)
    dilation = arguments.sizes(fn, "dilation", dilation, 2)
    groups = arguments.count(fn, "groups", groups, low=1)
    dg = arguments.count(fn, "deformable_groups", deformable_groups, low=1)
    for param, vals, low in (("stride", stride, 1), ("dilation", dilation, 1),
                             ("padding", padding, 0)):
        if min(vals) < low:
            raise arguments.ArgumentError(f"{fn}: {param} must be >= {low}, got {vals}")
    for param, t in (("x", x), ("weight", weight)):
        if len(arguments.tensor(fn, param, t).shape) != 4:
            raise arguments.ArgumentError(f"{fn}: {param} must be 4-D, got shape "
                                          f"{list(t.shape)}")
    kernel = [int(s) for s in weight.shape[2:]]
    h, w = int(x.shape[2]), int(x.shape[3])
    out_hw = [(size + 2 * p - (d * (kk - 1) + 1)) // s + 1 for size, p, d, kk, s in
              zip((h, w), padding, dilation, kernel, stride)]
    _check(fn, x, offset, weight, bias, mask, groups, dg, kernel, out_hw)
    n, c = int(x.shape[0]), int(x.shape[1])
    kh, kw = kernel
    k, cg = kh * kw, c // dg
    ho, wo = out_hw
    dtype = arguments.dtype_name_of(x)
    base_y = _taps(h, ho, kh, stride[0], padding[0], dilation[0], dtype)    # [kh, Ho]
    base_x = _taps(w, wo, kw, stride[1], padding[1], dilation[1], dtype)    # [kw, Wo]
    base_y = T.expand(base_y.reshape([kh, 1, ho, 1]), [kh, kw, ho, wo]).reshape([k, ho, wo])
    base_x = T.expand(base_x.reshape([1, kw, 1, wo]), [kh, kw, ho, wo]).reshape([k, ho, wo])
    moves = offset.reshape([n, dg, k, 2, ho, wo])
    ys = moves[:, :, :, 0] + base_y
    xs = moves[:, :, :, 1] + base_x
    rows = T.transpose(x.reshape([n, dg, cg, h * w]), [0, 1, 3, 2]).reshape([-1, cg])
    taps = _sample(rows, n, dg, k, h, w, ys, xs)                       # [N, dg, K, L, Cg]
    if mask is not None:
        taps = taps * mask.reshape([n, dg, k, ho * wo, 1])
    # columns [N, groups, L, C / groups * K], the channel before the tap as weight has them
    cols = T.transpose(taps, [0, 3, 1, 4, 2]).reshape([n, ho * wo, groups, -1])
    cols = T.transpose(cols, [0, 2, 1, 3])
    out_c = int(weight.shape[0])
    kernel_rows = weight.reshape([groups, out_c // groups, -1])
    out = T.matmul(cols, kernel_rows, transpose_y=True)                # [N, groups, L, Co_g]
    out = T.transpose(out, [0, 1, 3, 2]).reshape([n, out_c, ho, wo])
    if bias is not None:
        out = out + bias.reshape([1, out_c, 1, 1])
    return out


class DeformConv2D(Layer):
    """deform_conv2d as a layer holding weight [out_channels, in_channels / groups, kh, kw]
    (Normal(0, sqrt(2 / fan_in))) and bias [out_channels]: forward(x, offset, mask=None)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        fn = "DeformConv2D"
        in_channels = arguments.count(fn, "in_channels", in_channels, low=1)
        out_channels = arguments.count(fn, "out_channels", out_channels, low=1)
        groups = arguments.count(fn, "groups", groups, low=1)
        if in_channels % groups:
            raise arguments.ArgumentError(f"{fn}: in_channels ({in_channels}) must be a "
                                          f"multiple of groups ({groups})")
        kernel = arguments.sizes(fn, "kernel_size", kernel_size, 2)
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        fan_in = kernel[0] * kernel[1] * in_channels
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups] + kernel, weight_attr,
            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)
