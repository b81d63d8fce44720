"""Functional image transforms on numpy arrays (HW or HWC), as paddle.vision.transforms.functional.

    from skiff.vision.transforms import functional as F
    out = F.center_crop(F.pad(hwc_uint8, 4, padding_mode="reflect"), 32)

Each function also takes a PIL image (the result is a numpy array) and a CHW skiff Tensor
(the result is a CHW Tensor). Colour functions live in color.py, warps in geometric.py.
"""

import numbers
from collections.abc import Sequence

import numpy as np

from .color import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, to_grayscale
from .geometric import affine, perspective, rotate
from .image_input import as_array as _as_array
from .image_input import _tensor_from, fill_value, is_tensor, numpy_image_op

__all__ = [
    "to_tensor",
    "normalize",
    "resize",
    "hflip",
    "vflip",
    "pad",
    "crop",
    "center_crop",
    "erase",
    "to_grayscale",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "affine",
    "rotate",
    "perspective",
]


def _check_format(data_format):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format must be 'CHW' or 'HWC', got {data_format!r}")


def to_tensor(img, data_format="CHW"):
    """HW/HWC image -> CHW (or HWC) array; uint8 becomes float32 in [0, 1], others keep dtype.

    A CHW Tensor is returned as it is (as an HWC Tensor for data_format='HWC').
    """
    _check_format(data_format)
    if is_tensor(img):
        return img if data_format == "CHW" else _tensor_from(img.numpy().transpose(1, 2, 0))
    arr = _as_array(img)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3:
        raise ValueError(f"to_tensor expects an HW or HWC image, got shape {list(arr.shape)}")
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return arr.astype(np.float32) / np.float32(255.0)
    return np.ascontiguousarray(arr)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel; an HW image counts as one channel ([1, H, W] for CHW).

    Integer images are computed in float32. A scalar mean/std applies to every channel.
    to_rgb reverses the channel order (BGR -> RGB) first.
    """
    _check_format(data_format)
    if is_tensor(img):
        return _tensor_from(normalize(img.numpy(), mean, std, data_format, to_rgb))
    arr = _as_array(img)
    if arr.ndim == 2:
        arr = arr[None] if data_format == "CHW" else arr[:, :, None]
    if arr.ndim != 3:
        raise ValueError(f"normalize expects an image of rank 2 or 3, got {list(arr.shape)}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float32)
    channel_axis = 0 if data_format == "CHW" else 2
    channels = arr.shape[channel_axis]
    view = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    stats = []
    for what, value in (("mean", mean), ("std", std)):
        value = np.asarray(value, dtype=np.float32).reshape(-1)
        if value.size not in (1, channels):
            raise ValueError(
                f"normalize: {what} has {value.size} values but the {data_format} image "
                f"{list(arr.shape)} has {channels} channels"
            )
        stats.append(value.reshape(view))
    if to_rgb:
        arr = np.flip(arr, axis=channel_axis)
    return (arr - stats[0]) / stats[1]


def _output_size(height, width, size):
    """(out_h, out_w): an int resizes the shorter side to it, keeping the aspect ratio."""
    if isinstance(size, (int, np.integer)):
        if width <= height:
            return int(size * height / width), int(size)
        return int(size), int(size * width / height)
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"size must be an int or a (height, width) pair, got {size!r}")


def _nearest_sources(in_len, out_len):
    return np.minimum(np.arange(out_len) * in_len // out_len, in_len - 1)


def _linear_sources(in_len, out_len, compute_dtype):
    """Left source index, right source index and right weight per output position."""
    pos = (np.arange(out_len, dtype=np.float64) + 0.5) * (in_len / out_len) - 0.5
    pos = np.maximum(pos, 0.0)
    left = np.minimum(np.floor(pos).astype(np.int64), in_len - 1)
    right = np.minimum(left + 1, in_len - 1)
    return left, right, (pos - left).astype(compute_dtype)


@numpy_image_op
def resize(img, size, interpolation="bilinear"):
    """Resizes an HW/HWC image to `size` ((h, w), or an int for the shorter side).

    'nearest' takes source pixel floor(i * in / out), as OpenCV's INTER_NEAREST; 'bilinear'
    samples at pixel centres ((i + 0.5) * in / out - 0.5, clamped at the borders) as
    INTER_LINEAR and Paddle's Tensor backend (equal to it within 1e-4 for float images).
    Integer images are rounded back to their dtype: within 1 of OpenCV's fixed-point result.
    """
    arr = _as_array(img)
    if arr.ndim not in (2, 3):
        raise ValueError(f"resize expects an HW or HWC image, got shape {list(arr.shape)}")
    height, width = arr.shape[:2]
    if isinstance(size, (int, np.integer)) and min(height, width) == size:
        return arr
    out_h, out_w = _output_size(height, width, size)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"resize to {[out_h, out_w]} from {[height, width]}: sizes must be > 0")
    if interpolation == "nearest":
        rows, cols = _nearest_sources(height, out_h), _nearest_sources(width, out_w)
        return arr[rows][:, cols]
    if interpolation != "bilinear":
        raise ValueError(
            f"resize supports interpolation 'nearest' and 'bilinear', got {interpolation!r}"
        )
    compute = np.float64 if arr.dtype == np.float64 else np.float32
    top, bottom, wy = _linear_sources(height, out_h, compute)
    left, right, wx = _linear_sources(width, out_w, compute)
    src = arr.astype(compute, copy=False)
    extra = (1,) * (arr.ndim - 2)
    wx = wx.reshape((1, out_w) + extra)
    wy = wy.reshape((out_h, 1) + extra)
    upper = src[top][:, left] * (1 - wx) + src[top][:, right] * wx
    lower = src[bottom][:, left] * (1 - wx) + src[bottom][:, right] * wx
    out = upper * (1 - wy) + lower * wy
    if np.issubdtype(arr.dtype, np.integer):
        info = np.iinfo(arr.dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(arr.dtype)
    return out.astype(arr.dtype, copy=False)



@numpy_image_op
def hflip(img):
    """Mirrors an HW/HWC image left to right."""
    return np.ascontiguousarray(img[:, ::-1])


@numpy_image_op
def vflip(img):
    """Mirrors an HW/HWC image top to bottom."""
    return np.ascontiguousarray(img[::-1])


_PAD_MODES = ("constant", "edge", "reflect", "symmetric")  # numpy's names for Paddle's modes


def _padding_sides(padding):
    """(left, top, right, bottom) from an int, (left/right, top/bottom) or a 4-sequence."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * 4
    if not isinstance(padding, Sequence) or isinstance(padding, str):
        raise TypeError(
            f"pad: padding must be an int or a sequence of 2 or 4 ints, got {padding!r}"
        )
    if len(padding) not in (2, 4):
        raise ValueError(
            f"pad: padding must be an int or a 2, or 4 element tuple, not a {len(padding)} "
            f"element tuple"
        )
    sides = tuple(int(p) for p in padding)
    if min(sides) < 0:
        raise ValueError(f"pad: padding must be non-negative, got {padding!r}")
    return sides * 2 if len(sides) == 2 else sides


@numpy_image_op
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads an HW/HWC image; padding is an int, (left/right, top/bottom) or (l, t, r, b).

    padding_mode: 'constant' (with `fill`, a number or one value per channel), 'edge',
    'reflect' (mirror without the edge pixel) or 'symmetric' (mirror with it).
    """
    if padding_mode not in _PAD_MODES:
        raise ValueError(
            "pad: padding_mode should be either constant, edge, reflect or symmetric, got "
            f"{padding_mode!r}"
        )
    left, top, right, bottom = _padding_sides(padding)
    if img.ndim not in (2, 3):
        raise ValueError(f"pad expects an HW or HWC image, got shape {list(img.shape)}")
    if padding_mode != "constant":
        widths = ((top, bottom), (left, right)) + ((0, 0),) * (img.ndim - 2)
        return np.pad(img, widths, mode=padding_mode)
    channels = img.shape[2] if img.ndim == 3 else 1
    value = fill_value(fill, channels, img.dtype, "pad")
    height, width = img.shape[:2]
    out = np.empty((height + top + bottom, width + left + right) + img.shape[2:], img.dtype)
    out[...] = value if img.ndim == 3 else value[0]
    out[top : top + height, left : left + width] = img
    return out


@numpy_image_op
def crop(img, top, left, height, width):
    """The `height` x `width` window of an HW/HWC image whose top-left pixel is (top, left)."""
    if img.ndim not in (2, 3):
        raise ValueError(f"crop expects an HW or HWC image, got shape {list(img.shape)}")
    if top < 0 or left < 0 or height <= 0 or width <= 0:
        raise ValueError(
            f"crop: top/left must be >= 0 and height/width > 0, got {(top, left, height, width)}"
        )
    if top + height > img.shape[0] or left + width > img.shape[1]:
        raise ValueError(
            f"crop: window {(top, left, height, width)} (top, left, height, width) does not fit "
            f"in an image of {list(img.shape[:2])}"
        )
    return np.ascontiguousarray(img[top : top + height, left : left + width])


def _pair(size, where):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"{where}: size must be an int or a (height, width) pair, got {size!r}")


@numpy_image_op
def center_crop(img, output_size):
    """The centred `output_size` (int or (h, w)) window; offsets round((in - out) / 2)."""
    crop_h, crop_w = _pair(output_size, "center_crop")
    height, width = img.shape[:2]
    if crop_h > height or crop_w > width:
        raise ValueError(
            f"center_crop: output_size {[crop_h, crop_w]} is larger than the image "
            f"{[height, width]}"
        )
    top = int(round((height - crop_h) / 2.0))
    left = int(round((width - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def erase(img, i, j, h, w, v, inplace=False):
    """Sets the h x w box at (i, j) to `v`; `v` broadcasts to [h, w, C] (to [C, h, w] for a
    CHW Tensor). inplace=True writes into `img` itself."""
    if is_tensor(img):
        arr = img.numpy()
        if arr.ndim != 3:
            raise ValueError(f"erase: a Tensor image must be CHW, got shape {list(arr.shape)}")
        value = v.numpy() if is_tensor(v) else np.asarray(v)
        out = arr if inplace else arr.copy()
        out[..., i : i + h, j : j + w] = value
        result = _tensor_from(out)
        if inplace:
            img._set_value(result)
            return img
        return result
    arr = _as_array(img, "erase")
    out = arr if inplace else arr.copy()
    out[i : i + h, j : j + w, ...] = v
    return out
