"""Colour transforms of RGB images: grey scale, brightness, contrast, saturation and hue.

PIL images go to Pillow itself (pil_image.py). Integer arrays (values in [0, 255]) follow
PIL's ImageEnhance, as Paddle's PIL backend: grey is (19595 R + 38470 G + 7471 B + 2^15) >> 16,
blends are computed in float32 and truncated. Floating images (values in [0, 1]) follow Paddle's Tensor backend: grey is
0.2989 R + 0.587 G + 0.114 B, blends are clipped to [0, 1]. Hue works in float HSV for both.
"""

import numpy as np

from .image_args import check_factor, check_grey_channels, check_hue_factor
from .image_input import image_op, max_value

__all__ = [
    "to_grayscale",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
]

_FLOAT_GREY_WEIGHTS = (0.2989, 0.587, 0.114)


def _channels(img, where):
    """The number of channels of an HW (1) or HWC image; only 1 or 3 are colour images."""
    channels = 1 if img.ndim == 2 else img.shape[2]
    if img.ndim not in (2, 3) or channels not in (1, 3):
        raise ValueError(
            f"{where}: expected an HW image or an HWC image of 1 or 3 channels, got shape "
            f"{list(img.shape)}"
        )
    return channels


def _grey(img):
    """The HW grey level of an HWC RGB image, in the image's dtype."""
    if np.issubdtype(img.dtype, np.integer):
        rgb = img.astype(np.int64)
        grey = (rgb[..., 0] * 19595 + rgb[..., 1] * 38470 + rgb[..., 2] * 7471 + 0x8000) >> 16
        return grey.astype(img.dtype)
    weights = np.asarray(_FLOAT_GREY_WEIGHTS, dtype=np.float32).astype(img.dtype)  # as Paddle
    return (img * weights).sum(axis=2, dtype=img.dtype)


def _blend(img, degenerate, factor):
    """degenerate + factor * (img - degenerate), clipped to the image range, in img's dtype."""
    if np.issubdtype(img.dtype, np.floating):
        factor = img.dtype.type(factor)
        out = degenerate + factor * (img - degenerate)
        return np.clip(out, 0, 1).astype(img.dtype, copy=False)
    base = np.asarray(degenerate, dtype=np.float32)
    out = base + np.float32(factor) * (img.astype(np.float32) - base)
    return np.clip(out, 0, 255).astype(img.dtype)


@image_op
def to_grayscale(img, num_output_channels=1):
    """An HWC RGB image as grey, with 1 or 3 (equal) channels."""
    check_grey_channels(num_output_channels)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"to_grayscale expects an HWC RGB image, got shape {list(img.shape)}")
    grey = _grey(img)[:, :, None]
    return np.repeat(grey, num_output_channels, axis=2)


@image_op
def adjust_brightness(img, brightness_factor):
    """Scales the image by brightness_factor (0 gives black, 1 the original)."""
    check_factor(brightness_factor, "brightness_factor", "adjust_brightness")
    _channels(img, "adjust_brightness")
    return _blend(img, np.zeros((), img.dtype), brightness_factor)


@image_op
def adjust_contrast(img, contrast_factor):
    """Blends the image with its mean grey level (0 gives flat grey, 1 the original)."""
    check_factor(contrast_factor, "contrast_factor", "adjust_contrast")
    grey = img if _channels(img, "adjust_contrast") == 1 else _grey(img)
    if np.issubdtype(img.dtype, np.integer):
        mean = int(grey.astype(np.float64).mean() + 0.5)
    else:
        mean = grey.mean(dtype=img.dtype)
    return _blend(img, mean, contrast_factor)


@image_op
def adjust_saturation(img, saturation_factor):
    """Blends the image with its grey version (0 gives grey, 1 the original)."""
    check_factor(saturation_factor, "saturation_factor", "adjust_saturation")
    if _channels(img, "adjust_saturation") == 1:
        return img
    return _blend(img, _grey(img)[:, :, None], saturation_factor)


def _rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc, minc = rgb.max(axis=-1), rgb.min(axis=-1)
    flat = maxc == minc
    delta = maxc - minc
    s = delta / np.where(flat, 1, maxc)
    divisor = np.where(flat, 1, delta)
    rc, gc, bc = (maxc - r) / divisor, (maxc - g) / divisor, (maxc - b) / divisor
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, rc - bc + 2, gc - rc + 4))
    h = h / 6 + 1
    return h - np.trunc(h), s, maxc


def _hsv_to_rgb(h, s, v):
    sector = h * 6
    whole = np.floor(sector)
    f = sector - whole
    i = whole.astype(np.int64) % 6
    p = np.clip(v * (1 - s), 0, 1)
    q = np.clip(v * (1 - s * f), 0, 1)
    t = np.clip(v * (1 - s * (1 - f)), 0, 1)
    r = np.choose(i, [v, q, p, p, t, v])
    g = np.choose(i, [t, v, v, q, p, p])
    b = np.choose(i, [p, p, t, v, v, q])
    return np.stack([r, g, b], axis=-1)


@image_op
def adjust_hue(img, hue_factor):
    """Rotates the hue by hue_factor turns (in [-0.5, 0.5]); grey images are unchanged."""
    check_hue_factor(hue_factor)
    if _channels(img, "adjust_hue") == 1:
        return img
    integer = not np.issubdtype(img.dtype, np.floating)
    rgb = img.astype(np.float32) / np.float32(max_value(img.dtype)) if integer else img
    h, s, v = _rgb_to_hsv(rgb)
    h = h + rgb.dtype.type(hue_factor)
    h = h - np.floor(h)
    out = _hsv_to_rgb(h, s, v)
    if integer:
        return (out * np.float32(255)).astype(img.dtype)
    return out.astype(img.dtype, copy=False)
