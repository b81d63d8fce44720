"""The maps behind the warps, shared by every image backend: the inverse affine matrix of a
rotate-scale-shear-translate and the perspective coefficients of four point pairs (both map
output points to input points, as Pillow's Image.transform takes them), and the checks of
affine's arguments."""

import math
import numbers

import numpy as np

__all__ = ["check_affine_args", "inverse_affine_matrix", "perspective_coeffs"]


def inverse_affine_matrix(center, angle, translate, scale, shear):
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


def check_affine_args(angle, translate, scale, shear, interpolation, center):
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


def perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients mapping each end point to its start point (least squares)."""
    for name, points in (("startpoints", startpoints), ("endpoints", endpoints)):
        if np.asarray(points).shape != (4, 2):
            raise ValueError(f"perspective: {name} must be 4 [x, y] points, got {points!r}")
    rows = []
    for (ex, ey), (sx, sy) in zip(endpoints, startpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
    target = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return np.linalg.lstsq(np.asarray(rows, dtype=np.float64), target, rcond=None)[0]
