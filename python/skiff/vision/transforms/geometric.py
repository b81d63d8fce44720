"""Warps of HW/HWC images: affine, rotate and perspective, with 'nearest' or 'bilinear' sampling.

Coordinates are continuous with pixel (row i, column j) covering [j, j+1) x [i, i+1), as in
PIL and Paddle's Tensor backend: each output pixel centre (x + 0.5, y + 0.5) is mapped back
into the input; 'nearest' takes the pixel containing that point, 'bilinear' blends the four
nearest pixel centres, the area outside the input counting as `fill`. Positive angles turn
the image counter-clockwise.
"""

import math

import numpy as np

from .image_input import fill_value, image_op
from .warp_matrices import check_affine_args, inverse_affine_matrix, perspective_coeffs

__all__ = ["affine", "rotate", "perspective"]

_INTERPOLATIONS = ("nearest", "bilinear")


def _sample(img, inverse, out_h, out_w, interpolation, fill, where):
    """The out_h x out_w image whose pixel centre (x, y) takes img at inverse(x, y)."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"{where}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}"
        )
    arr = img[:, :, None] if img.ndim == 2 else img
    if arr.ndim != 3:
        raise ValueError(f"{where} expects an HW or HWC image, got shape {list(img.shape)}")
    height, width, channels = arr.shape
    rows, cols = np.meshgrid(
        np.arange(out_h, dtype=np.float64) + 0.5,
        np.arange(out_w, dtype=np.float64) + 0.5,
        indexing="ij",
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        u, v = inverse(cols, rows)
        if interpolation == "nearest":
            out = _nearest(arr, u, v, fill_value(fill, channels, arr.dtype, where))
        else:
            out = _bilinear(arr, u, v, fill_value(fill, channels, np.float64, where))
    return out[:, :, 0] if img.ndim == 2 else out


def _nearest(arr, u, v, fill):
    height, width = arr.shape[:2]
    col, row = np.floor(u), np.floor(v)
    inside = (u >= 0) & (v >= 0) & (col < width) & (row < height)
    out = np.empty(u.shape + arr.shape[2:], arr.dtype)
    out[...] = fill
    out[inside] = arr[row[inside].astype(np.int64), col[inside].astype(np.int64)]
    return out


def _bilinear(arr, u, v, fill):
    height, width, channels = arr.shape
    framed = np.empty((height + 2, width + 2, channels), np.float64)
    framed[...] = fill
    framed[1:-1, 1:-1] = arr
    x, y = u + 0.5, v + 0.5  # index coordinates in the framed image
    x0, y0 = np.floor(x), np.floor(y)
    inside = (x0 >= 0) & (y0 >= 0) & (x0 <= width) & (y0 <= height)
    out = np.empty(u.shape + (channels,), np.float64)
    out[...] = fill
    xi, yi = x0[inside].astype(np.int64), y0[inside].astype(np.int64)
    fx, fy = (x - x0)[inside][:, None], (y - y0)[inside][:, None]
    top = framed[yi, xi] * (1 - fx) + framed[yi, xi + 1] * fx
    bottom = framed[yi + 1, xi] * (1 - fx) + framed[yi + 1, xi + 1] * fx
    out[inside] = top * (1 - fy) + bottom * fy
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype)


def _affine_sampler(matrix):
    a, b, c, d, e, f = matrix
    return lambda x, y: (a * x + b * y + c, d * x + e * y + f)


@image_op
def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotates by `angle` degrees about `center` (default the image centre), scales, shears
    by (x, y) degrees and translates by (tx, ty) pixels, keeping the image size."""
    shear = check_affine_args(angle, translate, scale, shear, interpolation, center)
    height, width = img.shape[:2]
    if center is None:
        center = (width * 0.5, height * 0.5)
    matrix = inverse_affine_matrix(center, float(angle), translate, scale, shear)
    return _sample(img, _affine_sampler(matrix), height, width, interpolation, fill, "affine")


def _quarter_turn(img, angle, expand):
    """The exact result of a rotation by a multiple of 90 degrees, or None if not one."""
    height, width = img.shape[:2]
    if angle == 0:
        return img.copy()
    if angle == 180:
        return np.ascontiguousarray(img[::-1, ::-1])
    if angle in (90, 270) and (expand or width == height):
        return np.ascontiguousarray(np.rot90(img, 1 if angle == 90 else 3))
    return None


@image_op
def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotates by `angle` degrees counter-clockwise about `center` (default the image centre);
    expand=True grows the output to hold the whole rotated image (about the centre only)."""
    angle = float(angle) % 360.0
    if center is None:
        exact = _quarter_turn(img, angle, expand)
        if exact is not None:
            return exact
    height, width = img.shape[:2]
    cx, cy = (width / 2, height / 2) if center is None else center
    theta = -math.radians(angle)
    cos, sin = round(math.cos(theta), 15), round(math.sin(theta), 15)
    matrix = [cos, sin, 0.0, -sin, cos, 0.0]
    forward = _affine_sampler(matrix)
    matrix[2], matrix[5] = forward(-cx, -cy)
    matrix[2] += cx
    matrix[5] += cy
    if expand:
        corners = [_affine_sampler(matrix)(x, y) for x, y in
                   ((0, 0), (width, 0), (width, height), (0, height))]
        xs, ys = [p[0] for p in corners], [p[1] for p in corners]
        new_w = math.ceil(max(xs)) - math.floor(min(xs))
        new_h = math.ceil(max(ys)) - math.floor(min(ys))
        matrix[2], matrix[5] = _affine_sampler(matrix)(-(new_w - width) / 2.0,
                                                       -(new_h - height) / 2.0)
        width, height = new_w, new_h
    return _sample(img, _affine_sampler(matrix), height, width, interpolation, fill, "rotate")


@image_op
def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warps so that the four `startpoints` ([x, y], corners of the input) land on the four
    `endpoints`; the output keeps the input size."""
    a, b, c, d, e, f, g, h = perspective_coeffs(startpoints, endpoints)

    def inverse(x, y):
        denominator = g * x + h * y + 1
        return (a * x + b * y + c) / denominator, (d * x + e * y + f) / denominator

    height, width = img.shape[:2]
    return _sample(img, inverse, height, width, interpolation, fill, "perspective")
