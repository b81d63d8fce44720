"""paddle.vision.transforms.functional: image transforms of PIL images, numpy arrays (HW or
HWC) and CHW skiff Tensors.

    from skiff.vision.transforms import functional as F
    out = F.center_crop(F.pad(hwc_uint8, 4, padding_mode="reflect"), 32)

Each function returns the kind it was given: a PIL image (computed by Pillow, as Paddle's PIL
backend: pil_image.py), a numpy array, or a CHW Tensor (computed on the HWC array);
to_tensor returns a Tensor. Colour functions live in color.py, warps in geometric.py.
"""

import numbers

import numpy as np

from ...framework.arguments import is_floating
from ...nn.functional import interpolate
from ...tensor import manipulation
from ...tensor import math as tensor_math
from .color import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, to_grayscale
from .geometric import affine, perspective, rotate
from .image_args import check_interpolation, check_window, output_size, padding_sides, \
    size_pair
from .image_args import check_pad_mode as _check_pad_mode
from .image_input import as_array as _as_array
from .image_input import check_image as _check_image
from .image_input import fill_value, image_op, is_numpy_image, is_pil_image, is_tensor, \
    pil_backend, tensor_from

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

# Paddle's names of the image-kind tests, which code written for Paddle calls.
_is_pil_image = is_pil_image
_is_numpy_image = is_numpy_image
_is_tensor_image = is_tensor
_padding_sides = padding_sides

_ARRAY_INTERPOLATIONS = ("nearest", "bilinear")
_TENSOR_INTERPOLATIONS = ("nearest", "bilinear", "bicubic")


def _check_format(data_format):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format must be 'CHW' or 'HWC', got {data_format!r}")


def to_tensor(pic, data_format="CHW"):
    """A PIL image or HW/HWC array as a CHW (or HWC) Tensor: uint8 (every PIL mode but 'I',
    'I;16' and 'F') becomes float32 / 255, other dtypes are kept. A Tensor (CHW) is returned
    as it is (as HWC for data_format='HWC')."""
    _check_format(data_format)
    _check_image(pic, "to_tensor")
    if is_tensor(pic):
        return pic if data_format == "CHW" else tensor_from(pic.numpy().transpose(1, 2, 0))
    arr = pil_backend().to_array(pic) if is_pil_image(pic) else pic
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255.0)
    return tensor_from(arr)


def _channel_stats(value, what, channels, data_format, shape):
    """`mean` or `std` (a number or one per channel) as float32 values, checked."""
    if is_tensor(value):
        value = value.numpy()
    numeric = isinstance(value, numbers.Real) or (
        isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real) for v in value)
    ) or (isinstance(value, np.ndarray) and value.dtype.kind in "biuf")
    if not numeric:
        raise TypeError(f"normalize: {what} must be a number or a sequence of numbers (one per "
                        f"channel), got {type(value).__name__} {value!r}")
    value = np.asarray(value, dtype=np.float32).reshape(-1)
    if value.size not in (1, channels):
        raise ValueError(
            f"normalize: {what} has {value.size} values but the {data_format} image "
            f"{list(shape)} has {channels} channels"
        )
    return value


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel; an HW image counts as one channel ([1, H, W] for CHW).

    Integer images (PIL images too) are computed in float32 and come back as float32 numpy
    arrays; a Tensor comes back as a Tensor. A scalar mean/std applies to every channel.
    to_rgb reverses the channel order (BGR -> RGB) first.
    """
    _check_format(data_format)
    _check_image(img, "normalize")
    if is_tensor(img):
        return tensor_from(normalize(img.numpy(), mean, std, data_format, to_rgb))
    arr = _as_array(img, "normalize")
    if arr.ndim == 2:
        arr = arr[None] if data_format == "CHW" else arr[:, :, None]
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float32)
    channel_axis = 0 if data_format == "CHW" else 2
    channels = arr.shape[channel_axis]
    view = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    stats = [_channel_stats(value, what, channels, data_format, arr.shape).reshape(view)
             for what, value in (("mean", mean), ("std", std))]
    if to_rgb:
        arr = np.flip(arr, axis=channel_axis)
    return (arr - stats[0]) / stats[1]


def _nearest_sources(in_len, out_len):
    return np.minimum(np.arange(out_len) * in_len // out_len, in_len - 1)


def _linear_sources(in_len, out_len, compute_dtype):
    """Left source index, right source index and right weight per output position."""
    pos = (np.arange(out_len, dtype=np.float64) + 0.5) * (in_len / out_len) - 0.5
    pos = np.maximum(pos, 0.0)
    left = np.minimum(np.floor(pos).astype(np.int64), in_len - 1)
    right = np.minimum(left + 1, in_len - 1)
    return left, right, (pos - left).astype(compute_dtype)


def _resize_tensor(img, size, interpolation="bilinear"):
    """Paddle's Tensor backend: interpolate (half-pixel, align_corners=False) with 'nearest',
    'bilinear' or 'bicubic'; integer images are computed in float32 and truncated back."""
    check_interpolation(interpolation, "resize", _TENSOR_INTERPOLATIONS)
    height, width = int(img.shape[1]), int(img.shape[2])
    if isinstance(size, (int, np.integer)) and min(height, width) == size:
        return img
    out_h, out_w = output_size(height, width, size)
    dtype = img.dtype
    integer = not is_floating(img)
    batch = manipulation.unsqueeze(tensor_math.cast(img, "float32") if integer else img, 0)
    out = manipulation.squeeze(interpolate(batch, size=[out_h, out_w], mode=interpolation,
                                           align_corners=False), 0)
    if integer:
        out = tensor_math.cast(tensor_math.floor(out), dtype)
    return out


@image_op(tensor=_resize_tensor)
def resize(img, size, interpolation="bilinear"):
    """Resizes an HW/HWC image to `size` ((h, w), or an int for the shorter side).

    'nearest' takes source pixel floor(i * in / out), as OpenCV's INTER_NEAREST; 'bilinear'
    samples at pixel centres ((i + 0.5) * in / out - 0.5, clamped at the borders) as
    INTER_LINEAR and Paddle's Tensor backend (equal to it within 1e-4 for float images).
    Integer images are rounded back to their dtype: within 1 of OpenCV's fixed-point result.
    """
    arr = img
    check_interpolation(interpolation, "resize", _ARRAY_INTERPOLATIONS)
    height, width = arr.shape[:2]
    if isinstance(size, (int, np.integer)) and min(height, width) == size:
        return arr
    out_h, out_w = output_size(height, width, size)
    if interpolation == "nearest":
        rows, cols = _nearest_sources(height, out_h), _nearest_sources(width, out_w)
        return arr[rows][:, cols]
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


@image_op
def hflip(img):
    """Mirrors an HW/HWC image left to right."""
    return np.ascontiguousarray(img[:, ::-1])


@image_op
def vflip(img):
    """Mirrors an HW/HWC image top to bottom."""
    return np.ascontiguousarray(img[::-1])


@image_op
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads an HW/HWC image; padding is an int, (left/right, top/bottom) or (l, t, r, b).

    padding_mode: 'constant' (with `fill`, a number or one value per channel), 'edge',
    'reflect' (mirror without the edge pixel) or 'symmetric' (mirror with it).
    """
    _check_pad_mode(padding_mode)
    left, top, right, bottom = padding_sides(padding)
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


@image_op
def crop(img, top, left, height, width):
    """The `height` x `width` window of an HW/HWC image whose top-left pixel is (top, left)."""
    top, left, height, width = check_window("crop", top, left, height, width)
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


@image_op
def center_crop(img, output_size):
    """The centred `output_size` (int or (h, w)) window; offsets round((in - out) / 2)."""
    crop_h, crop_w = size_pair(output_size, "center_crop")
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
    CHW Tensor). inplace=True writes into `img` itself (a PIL image always comes back new)."""
    if is_tensor(img):
        arr = img.numpy()
        if arr.ndim != 3:
            raise ValueError(f"erase: a Tensor image must be CHW, got shape {list(arr.shape)}")
        value = v.numpy() if is_tensor(v) else np.asarray(v)
        out = arr if inplace else arr.copy()
        out[..., i : i + h, j : j + w] = value
        result = tensor_from(out)
        if inplace:
            img._set_value(result)
            return img
        return result
    _check_image(img, "erase")
    if is_pil_image(img):
        return pil_backend().erase(img, i, j, h, w, v.numpy() if is_tensor(v) else v)
    arr = img
    out = arr if inplace else arr.copy()
    out[i : i + h, j : j + w, ...] = v
    return out
