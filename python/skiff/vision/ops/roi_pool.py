"""RoI pooling over integer windows: roi_pool (the max of each bin, RoIPool) and psroi_pool
(position-sensitive: the mean of each bin over its own channel group, PSRoIPool). Each bin's
window is gathered from x as a fixed-size block with a mask, so autograd gives x's gradient
(the max's to its first maximum, as Paddle's kernel) and the functions run in programs."""
import math

from ...framework import arguments
from ...framework.mode import mode
from ... import tensor as T
from ...nn.layer.layers import Layer
from .roi_inputs import box_images, check_roi_inputs, pooled_size

__all__ = ["roi_pool", "RoIPool", "psroi_pool", "PSRoIPool"]


def _round(v):
    """Rounds half away from zero (C's round)."""
    return T.sign(v) * T.floor(T.abs(v) + 0.5)


def _bins(start, extent, pooled, size):
    """The [start, end) rows (int64 [R, pooled]) of each bin along one axis, clipped to
    [0, size]: floor and ceil of the bin's edges, as Paddle's kernels take them."""
    bin_size = (extent / pooled).unsqueeze(1)
    index = T.arange(pooled, dtype=extent.dtype).unsqueeze(0)
    lo = T.floor(index * bin_size + start.unsqueeze(1))
    hi = T.ceil((index + 1.0) * bin_size + start.unsqueeze(1))
    return (T.cast(T.clip(lo, 0.0, float(size)), "int64"),
            T.cast(T.clip(hi, 0.0, float(size)), "int64"))


def _window(lo, hi, pooled, size):
    """A static window length K covering every bin's [lo, hi) (from the values when eager;
    in a program, that of a box as large as the map), the rows lo + [0, K) clipped into the
    map ([R, pooled, K]) and the mask of those inside [lo, hi)."""
    if mode.static:
        k = min(size, math.ceil((size + 1) / pooled) + 1)
    else:
        k = max(1, int((hi - lo).max().item()) if lo.shape[0] else 1)
    step = T.arange(k, dtype="int64").reshape([1, 1, k])
    rows = lo.unsqueeze(2) + step
    inside = rows < hi.unsqueeze(2)
    return T.clip(rows, 0, size - 1), inside, k


def _gather_windows(x, images, channels, rows, cols):
    """x's values at [R, Cc, ph, pw, Kh, Kw]: image images[r], channel channels[r? , c, ph,
    pw] (broadcast), row rows[r, ph, i], column cols[r, pw, j]."""
    _, c, h, w = [int(s) for s in x.shape]
    plane = images.reshape([-1, 1, 1, 1, 1, 1]) * c + channels.unsqueeze(-1).unsqueeze(-1)
    r = rows.unsqueeze(1).unsqueeze(3).unsqueeze(5)                   # [R, 1, ph, 1, Kh, 1]
    q = cols.unsqueeze(1).unsqueeze(2).unsqueeze(4)                   # [R, 1, 1, pw, 1, Kw]
    index = (plane * h + r) * w + q
    shape = list(index.shape)
    return T.gather(x.reshape([-1]), index.reshape([-1]), axis=0).reshape(shape)


def _masks(h_in, w_in):
    """The [R, 1, ph, pw, Kh, Kw] mask of window cells inside their bin."""
    return T.logical_and(h_in.unsqueeze(1).unsqueeze(3).unsqueeze(5),
                         w_in.unsqueeze(1).unsqueeze(2).unsqueeze(4))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """The RoI max pooling of x [N, C, H, W] over boxes [R, 4] (x1, y1, x2, y2; boxes_num[n]
    per image): [R, C, pooled_h, pooled_w], an empty bin 0."""
    fn = "roi_pool"
    check_roi_inputs(fn, x, boxes, boxes_num)
    ph, pw = pooled_size(fn, output_size)
    scale = arguments.real(fn, "spatial_scale", spatial_scale, above=0.0)
    n, c, h, w = [int(s) for s in x.shape]
    b = boxes.detach()
    x1, y1 = _round(b[:, 0] * scale), _round(b[:, 1] * scale)
    rw = T.clip(_round(b[:, 2] * scale) - x1 + 1.0, min=1.0)
    rh = T.clip(_round(b[:, 3] * scale) - y1 + 1.0, min=1.0)
    h_lo, h_hi = _bins(y1, rh, ph, h)
    w_lo, w_hi = _bins(x1, rw, pw, w)
    rows, h_in, kh = _window(h_lo, h_hi, ph, h)
    cols, w_in, kw = _window(w_lo, w_hi, pw, w)
    channels = T.arange(c, dtype="int64").reshape([1, c, 1, 1])
    values = _gather_windows(x, box_images(b, boxes_num), channels, rows, cols)
    inside = T.expand(_masks(h_in, w_in), values.shape)
    lowest = T.full_like(values, float("-inf"))
    flat = T.where(inside, values, lowest).reshape([0, c, ph, pw, kh * kw])
    first_max = T.argmax(flat, axis=-1, keepdim=True)
    best = T.take_along_axis(flat, first_max, axis=-1).squeeze(-1)
    empty = T.logical_or((h_hi <= h_lo).unsqueeze(2), (w_hi <= w_lo).unsqueeze(1))
    empty = empty.unsqueeze(1)                                        # [R, 1, ph, pw]
    return T.where(T.expand(empty, best.shape), T.zeros_like(best), best)


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI average pooling of x [N, C, H, W] (C = C_out * pooled_h *
    pooled_w) over boxes [R, 4]: [R, C_out, pooled_h, pooled_w], bin (i, j) of output channel
    k the mean of input channel (k * pooled_h + i) * pooled_w + j over the bin."""
    fn = "psroi_pool"
    check_roi_inputs(fn, x, boxes, boxes_num)
    ph, pw = pooled_size(fn, output_size)
    scale = arguments.real(fn, "spatial_scale", spatial_scale, above=0.0)
    n, c, h, w = [int(s) for s in x.shape]
    if c % (ph * pw):
        raise arguments.ArgumentError(
            f"{fn}: the channels of x ({c}) must be a multiple of output_size's "
            f"pooled_h * pooled_w ({ph} * {pw})")
    out_c = c // (ph * pw)
    b = boxes.detach()
    x1, y1 = _round(b[:, 0]) * scale, _round(b[:, 1]) * scale
    rw = T.clip((_round(b[:, 2]) + 1.0) * scale - x1, min=0.1)
    rh = T.clip((_round(b[:, 3]) + 1.0) * scale - y1, min=0.1)
    h_lo, h_hi = _bins(y1, rh, ph, h)
    w_lo, w_hi = _bins(x1, rw, pw, w)
    rows, h_in, kh = _window(h_lo, h_hi, ph, h)
    cols, w_in, kw = _window(w_lo, w_hi, pw, w)
    channels = T.arange(c, dtype="int64").reshape([1, out_c, ph, pw])
    values = _gather_windows(x, box_images(b, boxes_num), channels, rows, cols)
    inside = T.cast(_masks(h_in, w_in), x.dtype)
    total = T.sum(values * inside, axis=[4, 5])                      # [R, C_out, ph, pw]
    area = T.cast((h_hi - h_lo).unsqueeze(2) * (w_hi - w_lo).unsqueeze(1), x.dtype)
    area = area.unsqueeze(1)
    safe = T.where(area > 0, area, T.ones_like(area))
    return T.where(T.expand(area > 0, total.shape), total / safe, T.zeros_like(total))


class RoIPool(Layer):
    """roi_pool as a layer: forward(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class PSRoIPool(Layer):
    """psroi_pool as a layer: forward(x, boxes, boxes_num)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)
