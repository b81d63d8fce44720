"""The transforms of PIL images, as Paddle's PIL backend: each takes a PIL.Image and returns
one, computed by Pillow's own operations (transpose, resize, crop, ImageOps.expand,
ImageEnhance, rotate, transform), so the pixels are Paddle's.

Imported only when an input is a PIL image: Pillow is an optional dependency of skiff.
"""

import numbers

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from . import image_args, warp_matrices

__all__ = [
    "RESIZE_INTERPOLATIONS",
    "WARP_INTERPOLATIONS",
    "to_array",
    "hflip",
    "vflip",
    "resize",
    "pad",
    "crop",
    "center_crop",
    "erase",
    "to_grayscale",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "rotate",
    "affine",
    "perspective",
]

_RESAMPLE = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "box": Image.Resampling.BOX,
    "lanczos": Image.Resampling.LANCZOS,
    "hamming": Image.Resampling.HAMMING,
}
RESIZE_INTERPOLATIONS = tuple(_RESAMPLE)
WARP_INTERPOLATIONS = image_args.WARP_INTERPOLATIONS  # what Image.transform supports


def to_array(img):
    """The pixels as an HWC array: 'I' and 'I;16' as int32, 'F' as float32, '1' as 0/255
    uint8, every other mode as uint8."""
    if img.mode in ("I", "I;16"):
        arr = np.array(img, dtype=np.int32)
    elif img.mode == "F":
        arr = np.array(img, dtype=np.float32)
    elif img.mode == "1":
        arr = np.array(img, dtype=np.uint8) * np.uint8(255)
    else:
        arr = np.array(img, dtype=np.uint8)
    return arr[:, :, None] if arr.ndim == 2 else arr


def hflip(img):
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)


def resize(img, size, interpolation="bilinear"):
    """`size` (h, w), or an int for the shorter side (the image itself when it already is)."""
    image_args.check_interpolation(interpolation, "resize", RESIZE_INTERPOLATIONS)
    width, height = img.size
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool) \
            and min(width, height) == size:
        return img
    out_h, out_w = image_args.output_size(height, width, size)
    return img.resize((out_w, out_h), _RESAMPLE[interpolation])


def _fill_color(img, fill, where, number_bands=None):
    """`fill` as Pillow takes it for `img`: a number for one band, else a number repeated
    `number_bands` times (default: every band) and a sequence one value per band."""
    bands = len(img.getbands())
    if isinstance(fill, numbers.Number) and not isinstance(fill, bool):
        return fill if bands == 1 else (fill,) * (number_bands or bands)
    if isinstance(fill, (list, tuple)) and all(isinstance(v, numbers.Number) for v in fill):
        if len(fill) == 1:
            return fill[0] if bands == 1 else (fill[0],) * bands
        if len(fill) == bands:
            return tuple(fill)
        raise ValueError(f"{where}: fill has {len(fill)} values for an image of {bands} bands")
    raise TypeError(f"{where}: fill must be a number or a sequence of numbers, got {fill!r}")


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads with `fill` (constant) or by numpy's edge, reflect or symmetric padding; a
    palette image keeps its palette."""
    image_args.check_pad_mode(padding_mode)
    left, top, right, bottom = image_args.padding_sides(padding)
    if padding_mode == "constant":
        if not isinstance(fill, numbers.Number):  # a number goes to Pillow as it is, as Paddle's
            fill = _fill_color(img, fill, "pad")  # (on RGB, Pillow reads 7 as (7, 0, 0))
        return ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
    arr = np.asarray(img)
    widths = ((top, bottom), (left, right)) + ((0, 0),) * (arr.ndim - 2)
    return _like(np.pad(arr, widths, mode=padding_mode), img)


def _like(arr, img):
    """The array `arr` (of `img`'s dtype) as an image of `img`'s mode and palette."""
    out = Image.fromarray(arr)
    if img.mode == "P":
        out.putpalette(img.getpalette())
    return out if out.mode == img.mode else out.convert(img.mode)


def crop(img, top, left, height, width):
    """The window of `height` x `width` at (top, left); parts outside the image are zeros."""
    top, left, height, width = image_args.check_window("crop", top, left, height, width)
    return img.crop((left, top, left + width, top + height))


def center_crop(img, output_size):
    crop_h, crop_w = image_args.size_pair(output_size, "center_crop")
    width, height = img.size
    top = int(round((height - crop_h) / 2.0))
    left = int(round((width - crop_w) / 2.0))
    return crop(img, top, left, crop_h, crop_w)


def erase(img, i, j, h, w, v):
    """A copy with the h x w box at (i, j) set to `v` (an array broadcast to [h, w, C])."""
    arr = np.array(img)
    arr[i : i + h, j : j + w, ...] = np.asarray(v).astype(arr.dtype)
    return _like(arr, img)


def to_grayscale(img, num_output_channels=1):
    image_args.check_grey_channels(num_output_channels)
    grey = img.convert("L")
    return grey if num_output_channels == 1 else grey.convert("RGB")


def adjust_brightness(img, brightness_factor):
    image_args.check_factor(brightness_factor, "brightness_factor", "adjust_brightness")
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor):
    image_args.check_factor(contrast_factor, "contrast_factor", "adjust_contrast")
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor):
    image_args.check_factor(saturation_factor, "saturation_factor", "adjust_saturation")
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor):
    """Shifts the 8-bit hue of Pillow's HSV by int(hue_factor * 255) (mod 256); images
    without colour ('L', '1', 'I', 'F') come back unchanged."""
    image_args.check_hue_factor(hue_factor)
    if img.mode in ("L", "1", "I", "F"):
        return img
    hue, saturation, value = img.convert("HSV").split()
    shift = int(hue_factor * 255) % 256
    shifted = ((np.asarray(hue, dtype=np.int32) + shift) % 256).astype(np.uint8)
    hsv = Image.merge("HSV", (Image.fromarray(shifted, "L"), saturation, value))
    return hsv.convert(img.mode)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    image_args.check_interpolation(interpolation, "rotate", WARP_INTERPOLATIONS)
    # a number fills three bands, as Paddle's (so an RGBA image's alpha becomes opaque)
    return img.rotate(angle, _RESAMPLE[interpolation], expand, center,
                      fillcolor=_fill_color(img, fill, "rotate", number_bands=3))


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotates, scales, shears and translates about `center` (default the image centre)."""
    shear = warp_matrices.check_affine_args(angle, translate, scale, shear, interpolation, center)
    image_args.check_interpolation(interpolation, "affine", WARP_INTERPOLATIONS)
    width, height = img.size
    if center is None:
        center = (width * 0.5, height * 0.5)
    matrix = warp_matrices.inverse_affine_matrix(center, float(angle), translate, scale, shear)
    return img.transform(img.size, Image.Transform.AFFINE, tuple(matrix),
                         _RESAMPLE[interpolation], fillcolor=_fill_color(img, fill, "affine"))


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warps so that the four `startpoints` land on the four `endpoints`."""
    image_args.check_interpolation(interpolation, "perspective", WARP_INTERPOLATIONS)
    coefficients = warp_matrices.perspective_coeffs(startpoints, endpoints)
    return img.transform(img.size, Image.Transform.PERSPECTIVE, tuple(coefficients),
                         _RESAMPLE[interpolation],
                         fillcolor=_fill_color(img, fill, "perspective"))
