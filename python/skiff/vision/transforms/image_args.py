"""Checks of the arguments that every image backend of the transforms shares (numpy arrays,
PIL images, CHW Tensors), so that each backend raises the same clear errors."""

import numbers
from collections.abc import Sequence

import numpy as np

from ...framework import arguments

__all__ = [
    "PAD_MODES",
    "check_window",
    "number_pair",
    "RESIZE_INTERPOLATIONS",
    "WARP_INTERPOLATIONS",
    "check_factor",
    "check_grey_channels",
    "check_hue_factor",
    "check_interpolation",
    "check_pad_mode",
    "output_size",
    "padding_sides",
    "size_pair",
]

PAD_MODES = ("constant", "edge", "reflect", "symmetric")
# The interpolation names some backend knows (Pillow's for resize, plus OpenCV's 'area'; Pillow's
# Image.transform for warps): a transform's constructor takes them, each backend checks its own.
RESIZE_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "box", "lanczos", "hamming", "area")
WARP_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")


def check_factor(value, name, where):
    """A non-negative real colour factor (brightness, contrast, saturation)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{where}: {name} should be non-negative, got {value}")
    return value


def check_hue_factor(hue_factor):
    """A hue shift in turns, within [-0.5, 0.5]."""
    if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real):
        raise TypeError(f"adjust_hue: hue_factor must be a number, got "
                        f"{type(hue_factor).__name__}")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    return hue_factor


def check_grey_channels(num_output_channels, where="to_grayscale"):
    if num_output_channels not in (1, 3) or isinstance(num_output_channels, bool):
        raise ValueError(
            f"{where}: num_output_channels should be either 1 or 3, got {num_output_channels!r}"
        )
    return int(num_output_channels)


def check_interpolation(interpolation, where, names):
    """`interpolation` when it is one of `names` (the backend's), else a ValueError."""
    if not isinstance(interpolation, str) or interpolation not in names:
        raise ValueError(
            f"{where}: interpolation must be one of {', '.join(map(repr, names))} for this "
            f"image kind, got {interpolation!r}"
        )
    return interpolation


def check_pad_mode(padding_mode, where="pad"):
    if padding_mode not in PAD_MODES:
        raise ValueError(
            f"{where}: padding_mode should be either constant, edge, reflect or symmetric, got "
            f"{padding_mode!r}"
        )
    return padding_mode


def padding_sides(padding, where="pad"):
    """(left, top, right, bottom) from an int, (left/right, top/bottom) or a 4-sequence."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        sides = (int(padding),) * 4
    elif not isinstance(padding, Sequence) or isinstance(padding, str):
        raise TypeError(
            f"{where}: padding must be an int or a sequence of 2 or 4 ints, got {padding!r}"
        )
    elif len(padding) not in (2, 4):
        raise ValueError(
            f"{where}: padding must be an int or a 2, or 4 element tuple, not a {len(padding)} "
            f"element tuple"
        )
    else:
        if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
            raise TypeError(f"{where}: padding must hold ints, got {padding!r}")
        sides = tuple(int(p) for p in padding)
        sides = sides * 2 if len(sides) == 2 else sides
    if min(sides) < 0:
        raise ValueError(f"{where}: padding must be non-negative, got {padding!r}")
    return sides


def size_pair(size, where):
    """(height, width) from an int or a pair of ints."""
    if isinstance(size, numbers.Number) and not isinstance(size, bool):
        return int(size), int(size)
    if isinstance(size, Sequence) and not isinstance(size, str) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"{where}: size must be an int or a (height, width) pair, got {size!r}")


def output_size(height, width, size, where="resize"):
    """(out_h, out_w) of a resize: an int sets the shorter side, keeping the aspect ratio."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"{where}: size must be positive, got {size}")
        if width <= height:
            return int(size * height / width), int(size)
        return int(size), int(size * width / height)
    if isinstance(size, Sequence) and not isinstance(size, str) and len(size) == 2:
        out_h, out_w = (int(s) for s in size)
        if out_h <= 0 or out_w <= 0:
            raise ValueError(f"{where}: size must be positive, got {size!r}")
        return out_h, out_w
    raise TypeError(f"{where}: size must be an int or a (height, width) pair, got {size!r}")


def number_pair(value, name, where):
    """`value` as a (low, high) pair of real numbers."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        return tuple(float(v) for v in value)
    raise TypeError(f"{where}: {name} must be a (min, max) pair of numbers, got {value!r}")


def check_window(where, top, left, height, width):
    """(top, left, height, width) of a crop window, each an int."""
    return tuple(arguments.integer(where, name, value) for name, value in
                 (("top", top), ("left", left), ("height", height), ("width", width)))
