"""RoI Align (paddle.vision.ops.roi_align, RoIAlign): the mean of bilinear samples on a grid
in each output bin of each box, as gathers of the feature map's rows and their weights (so
autograd gives x's gradient, and the function runs in a program)."""
import math

from ...framework import arguments
from ...framework.mode import mode
from ... import tensor as T
from ...nn.layer.layers import Layer
from .roi_inputs import box_images, check_roi_inputs, pooled_size

__all__ = ["roi_align", "RoIAlign"]


def _grid_size(sampling_ratio, extent, pooled, feature):
    """The samples per bin along one axis of every box: sampling_ratio, or ceil(extent /
    pooled) per box, and a static count G bounding it (the largest, from the values when
    eager; in a program, the one of a box as large as the feature map)."""
    if sampling_ratio > 0:
        return None, sampling_ratio
    grid = T.ceil(extent / pooled)
    if mode.static:
        return grid, max(1, math.ceil((feature + 1) / pooled))
    return grid, max(1, int(grid.max().item()) if grid.shape[0] else 1)


def _axis_samples(start, extent, pooled, grid, g):
    """Sample positions [R, pooled, G] along one axis and their mask (sample index < the
    box's grid size)."""
    bin_size = (extent / pooled).unsqueeze(1).unsqueeze(2)            # [R, 1, 1]
    bins = T.arange(pooled, dtype=start.dtype).reshape([1, pooled, 1])
    steps = T.arange(g, dtype=start.dtype).reshape([1, 1, g]) + 0.5
    if grid is None:
        return start.unsqueeze(1).unsqueeze(2) + bins * bin_size + steps * bin_size / g, None
    count = grid.unsqueeze(1).unsqueeze(2)
    # A box of no extent has no samples (its bin is 0); its positions only need be finite.
    pos = start.unsqueeze(1).unsqueeze(2) + bins * bin_size + \
        steps * bin_size / T.clip(count, min=1.0)
    mask = T.cast(T.arange(g, dtype=start.dtype).reshape([1, 1, g]) < count, start.dtype)
    return pos, T.expand(mask, pos.shape)


def _corners(pos, size):
    """For sample positions along an axis of ``size``: the low and high indices (int64) and
    their weights, zero outside [-1, size] as Paddle's kernel has it."""
    inside = T.cast(T.logical_and(pos >= -1.0, pos <= float(size)), pos.dtype)
    p = T.clip(pos, min=0.0)
    low = T.floor(p)
    at_edge = low >= size - 1
    low = T.where(at_edge, T.full_like(low, size - 1), low)
    p = T.where(at_edge, low, p)
    high = T.where(at_edge, low, low + 1)
    frac = p - low
    return (T.cast(low, "int64"), T.cast(high, "int64"),
            (1.0 - frac) * inside, frac * inside)


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
              aligned=True, name=None):
    """The RoI Align of x [N, C, H, W] over boxes [R, 4] (x1, y1, x2, y2, boxes_num[n] of
    them per image): [R, C, pooled_h, pooled_w], each bin the mean of bilinear samples."""
    fn = "roi_align"
    check_roi_inputs(fn, x, boxes, boxes_num)
    ph, pw = pooled_size(fn, output_size)
    scale = arguments.real(fn, "spatial_scale", spatial_scale, above=0.0)
    ratio = arguments.integer(fn, "sampling_ratio", sampling_ratio)
    aligned = arguments.flag(fn, "aligned", aligned)
    n, c, h, w = [int(s) for s in x.shape]
    b = boxes.detach()
    offset = 0.5 if aligned else 0.0
    x1, y1 = b[:, 0] * scale - offset, b[:, 1] * scale - offset
    rw, rh = b[:, 2] * scale - offset - x1, b[:, 3] * scale - offset - y1
    if not aligned:
        rw, rh = T.clip(rw, min=1.0), T.clip(rh, min=1.0)
    grid_y, gy = _grid_size(ratio, rh, ph, h)
    grid_x, gx = _grid_size(ratio, rw, pw, w)
    ys, my = _axis_samples(y1, rh, ph, grid_y, gy)                    # [R, ph, gy]
    xs, mx = _axis_samples(x1, rw, pw, grid_x, gx)                    # [R, pw, gx]
    y_lo, y_hi, wy_lo, wy_hi = _corners(ys, h)
    x_lo, x_hi, wx_lo, wx_hi = _corners(xs, w)
    if my is not None:
        wy_lo, wy_hi = wy_lo * my, wy_hi * my
    if mx is not None:
        wx_lo, wx_hi = wx_lo * mx, wx_hi * mx
    if grid_y is None:
        count = float(max(gy * gx, 1))
    else:
        count = T.clip(grid_y * grid_x, min=1.0).reshape([-1, 1, 1, 1, 1])
    image = box_images(b, boxes_num).reshape([-1, 1, 1, 1, 1]) * (h * w)
    rows = T.transpose(x, [0, 2, 3, 1]).reshape([n * h * w, c])
    out = None
    # The four corners: [R, ph, gy, 1, 1] rows by [R, 1, 1, pw, gx] columns.
    for yi, wy in ((y_lo, wy_lo), (y_hi, wy_hi)):
        for xi, wx in ((x_lo, wx_lo), (x_hi, wx_hi)):
            index = image + yi.unsqueeze(3).unsqueeze(4) * w + xi.unsqueeze(1).unsqueeze(2)
            weight = wy.unsqueeze(3).unsqueeze(4) * wx.unsqueeze(1).unsqueeze(2) / count
            shape = list(index.shape)
            picked = T.gather(rows, index.reshape([-1]), axis=0).reshape(shape + [c])
            term = T.sum(picked * weight.unsqueeze(-1), axis=[2, 4])    # [R, ph, pw, C]
            out = term if out is None else out + term
    return T.transpose(out, [0, 3, 1, 2])


class RoIAlign(Layer):
    """roi_align as a layer: forward(x, boxes, boxes_num, aligned=True)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)
