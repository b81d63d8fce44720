"""Image transforms on numpy arrays (HWC or HW), following paddle.vision.transforms.

    transform = Compose([Resize(32), RandomHorizontalFlip(), ToTensor(), Normalize(0.5, 0.5)])
    chw = transform(hwc_uint8)        # float32 numpy [C, 32, 32]

Results are numpy arrays; the DataLoader turns batches into Tensors. PIL images are accepted
and become numpy arrays. Randomness uses Python's `random` module, as Paddle does.
"""

import random
from collections.abc import Sequence

import numpy as np

__all__ = [
    "BaseTransform",
    "Compose",
    "ToTensor",
    "Normalize",
    "Resize",
    "RandomHorizontalFlip",
    "Transpose",
    "to_tensor",
    "normalize",
    "resize",
    "hflip",
]


def _as_array(img):
    """numpy arrays pass through; PIL images (anything with `__array_interface__`) convert."""
    if isinstance(img, np.ndarray):
        return img
    if hasattr(img, "__array_interface__") or hasattr(img, "getbands"):
        return np.asarray(img)
    raise TypeError(f"expected a numpy array or PIL image, got {type(img).__name__}")


def _check_format(data_format):
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format must be 'CHW' or 'HWC', got {data_format!r}")


def to_tensor(img, data_format="CHW"):
    """HW/HWC image -> CHW (or HWC) array; uint8 becomes float32 in [0, 1], others keep dtype."""
    _check_format(data_format)
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


def resize(img, size, interpolation="bilinear"):
    """Resizes an HW/HWC image to `size` ((h, w), or an int for the shorter side).

    'nearest' takes source pixel floor(i * in / out); 'bilinear' samples at pixel centres
    ((i + 0.5) * in / out - 0.5, clamped at the borders). Integer images are rounded back
    to their dtype.
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


def hflip(img):
    """Mirrors an HW/HWC image left to right."""
    return np.ascontiguousarray(_as_array(img)[:, ::-1])


class BaseTransform:
    """A transform applied to one input or to a tuple of inputs named by `keys`.

    An input named "image" goes through `_apply_image`, "xxx" through `_apply_xxx` when the
    subclass defines it, and passes unchanged otherwise. `_get_params` runs once per call,
    so random choices are shared by all inputs (an image and its mask flip together).
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(f"keys must be a sequence of names, got {keys!r}")
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs):
        return None

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} must define _apply_image")

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        items = [inputs] if single else list(inputs)
        self.params = self._get_params(items)
        outputs = []
        for i, item in enumerate(items):
            apply = getattr(self, f"_apply_{self.keys[i]}", None) if i < len(self.keys) else None
            outputs.append(item if apply is None else apply(item))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


class Compose:
    """Applies the transforms in order; an error is annotated with the failing transform."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for i, transform in enumerate(self.transforms):
            try:
                data = transform(data)
            except Exception as exc:
                if hasattr(exc, "add_note"):
                    exc.add_note(f"in transform {i} ({type(transform).__name__}) of Compose")
                raise
        return data

    def __repr__(self):
        inner = ", ".join(type(t).__name__ for t in self.transforms)
        return f"Compose([{inner}])"


class ToTensor(BaseTransform):
    """HW/HWC image -> CHW (data_format='CHW') or HWC array; uint8 -> float32 / 255."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        _check_format(data_format)
        self.data_format = data_format

    def _apply_image(self, image):
        return to_tensor(image, self.data_format)


class Normalize(BaseTransform):
    """(image - mean) / std per channel of a CHW or HWC image (see `normalize`)."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        _check_format(data_format)
        self.mean, self.std = mean, std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, image):
        return normalize(image, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resizes HW/HWC images to `size` with 'bilinear' or 'nearest' interpolation."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                f"Resize supports interpolation 'nearest' and 'bilinear', got {interpolation!r}"
            )
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, image):
        return resize(image, self.size, self.interpolation)


class RandomHorizontalFlip(BaseTransform):
    """Mirrors the image left to right with probability `prob` (drawn with `random.random()`)."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError(f"prob must be in [0, 1], got {prob}")
        self.prob = prob

    def _get_params(self, inputs):
        return random.random() < self.prob

    def _apply_image(self, image):
        return hflip(image) if self.params else _as_array(image)


class Transpose(BaseTransform):
    """Permutes the axes of an HWC image (default HWC -> CHW); an HW image counts as HW1."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, image):
        arr = _as_array(image)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return arr.transpose(self.order)
