"""Warps of HW/HWC images: affine, rotate and perspective, with 'nearest' or 'bilinear' sampling.

Coordinates are continuous with pixel (row i, column j) covering [j, j+1) x [i, i+1), as in
PIL and Paddle's Tensor backend: each output pixel centre (x + 0.5, y + 0.5) is mapped back
into the input; 'nearest' takes the pixel containing that point, 'bilinear' blends the four
nearest pixel centres, the area outside the input counting as `fill`. Positive angles turn
the image counter-clockwise.
"""

import math
import numbers

import numpy as np

from .image_input import fill_value, numpy_image_op

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


def _inverse_affine_matrix(center, angle, translate, scale, shear):
    """The 2x3 map (flattened) from output to input points of a rotate-scale-shear-translate."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [value / scale for value in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _check_affine_args(angle, translate, scale, shear, interpolation, center):
    if not isinstance(angle, numbers.Real):
        raise TypeError(f"affine: angle should be int or float, got {angle!r}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise TypeError(f"affine: translate should be a sequence of length 2, got {translate!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    if not isinstance(shear, (list, tuple)) or len(shear) not in (1, 2):
        raise ValueError(f"affine: shear should be a number or a sequence of two values, got "
                         f"{shear!r}")
    if not isinstance(interpolation, str):
        raise TypeError(f"affine: interpolation should be a string, got {interpolation!r}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError(f"affine: center should be a sequence, got {center!r}")
    return [shear[0], shear[0]] if len(shear) == 1 else list(shear)


@numpy_image_op
def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotates by `angle` degrees about `center` (default the image centre), scales, shears
    by (x, y) degrees and translates by (tx, ty) pixels, keeping the image size."""
    shear = _check_affine_args(angle, translate, scale, shear, interpolation, center)
    height, width = img.shape[:2]
    if center is None:
        center = (width * 0.5, height * 0.5)
    matrix = _inverse_affine_matrix(center, float(angle), translate, scale, shear)
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


@numpy_image_op
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


def _perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients mapping each end point to its start point (least squares)."""
    rows = []
    for (ex, ey), (sx, sy) in zip(endpoints, startpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
    target = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return np.linalg.lstsq(np.asarray(rows, dtype=np.float64), target, rcond=None)[0]


@numpy_image_op
def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warps so that the four `startpoints` ([x, y], corners of the input) land on the four
    `endpoints`; the output keeps the input size."""
    for name, points in (("startpoints", startpoints), ("endpoints", endpoints)):
        if np.asarray(points).shape != (4, 2):
            raise ValueError(f"perspective: {name} must be 4 [x, y] points, got {points!r}")
    a, b, c, d, e, f, g, h = _perspective_coeffs(startpoints, endpoints)

    def inverse(x, y):
        denominator = g * x + h * y + 1
        return (a * x + b * y + c) / denominator, (d * x + e * y + f) / denominator

    height, width = img.shape[:2]
    return _sample(img, inverse, height, width, interpolation, fill, "perspective")
