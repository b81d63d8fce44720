"""The image kinds the transforms accept, and how each function reaches its backend.

As in Paddle, a transform takes a PIL image (and returns one, computed by Pillow: see
pil_image.py), a numpy array (HW or HWC; returns one) or a CHW skiff Tensor (returns one;
computed on the HWC array). Integer images hold values in [0, 255], floating images in [0, 1]
(where a range matters). Anything else is a TypeError naming the kinds.
"""

import functools
import numbers
import sys
from collections.abc import Sequence

import numpy as np

from ..._C import Tensor
from ...framework.arguments import forward_call
from ...tensor.creation import to_tensor

__all__ = [
    "as_array",
    "check_image",
    "fill_value",
    "image_op",
    "image_size",
    "is_numpy_image",
    "is_pil_image",
    "is_tensor",
    "max_value",
    "pil_backend",
    "tensor_from",
]


def is_tensor(img):
    """True for a skiff Tensor (a CHW image to the transforms)."""
    return isinstance(img, Tensor)


def is_pil_image(img):
    """True for a PIL image (without importing Pillow: an image exists only once it is)."""
    image_module = sys.modules.get("PIL.Image")
    return image_module is not None and isinstance(img, image_module.Image)


def is_numpy_image(img):
    """True for a numpy array of rank 2 (HW) or 3 (HWC)."""
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def check_image(img, where):
    """TypeError unless `img` is a PIL image, a Tensor or an HW/HWC numpy array."""
    if is_pil_image(img) or is_tensor(img) or is_numpy_image(img):
        return img
    got = f"ndarray of shape {list(img.shape)}" if isinstance(img, np.ndarray) else \
        type(img).__name__
    raise TypeError(
        f"{where}: img should be PIL Image or Tensor Image or ndarray with dim=[2 or 3], got "
        f"{got}"
    )


def pil_backend():
    """The transforms of PIL images (imported on first use)."""
    from . import pil_image  # noqa: PLC0415  (Pillow: optional, needed only for PIL images)

    return pil_image


def as_array(img, where="transform"):
    """An HW/HWC numpy array as it is, a PIL image as its pixels (np.asarray)."""
    check_image(img, where)
    if is_tensor(img):
        raise TypeError(f"{where}: expected a numpy array or PIL image, got a Tensor")
    return img if isinstance(img, np.ndarray) else np.asarray(img)


def image_size(img):
    """(width, height) of an HW/HWC array, a PIL image or a CHW Tensor."""
    if is_pil_image(img):
        return tuple(img.size)
    if is_tensor(img):
        if len(img.shape) != 3:
            raise ValueError(f"a Tensor image must be CHW, got shape {list(img.shape)}")
        return int(img.shape[2]), int(img.shape[1])
    arr = as_array(img)
    return int(arr.shape[1]), int(arr.shape[0])


def max_value(dtype):
    """The brightest value of an image of `dtype`: 1.0 for floats, 255 for integers."""
    return 1.0 if np.issubdtype(dtype, np.floating) else 255.0


def fill_value(fill, channels, dtype, where):
    """`fill` (a number or one value per channel) as an array broadcastable to one pixel."""
    if isinstance(fill, str) or not isinstance(fill, (numbers.Number, Sequence, np.ndarray)):
        raise TypeError(f"{where}: fill must be a number or a sequence, got {fill!r}")
    value = np.asarray(fill, dtype=np.float64).reshape(-1)
    if value.size == 1:
        value = np.repeat(value, channels)
    if value.size != channels:
        raise ValueError(
            f"{where}: fill has {value.size} values for an image of {channels} channels"
        )
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        value = np.clip(value, info.min, info.max)
    return value.astype(dtype)


def tensor_from(chw):
    """A skiff Tensor holding the array `chw`."""
    return to_tensor(np.ascontiguousarray(chw))


def image_op(fn=None, *, tensor=None):
    """Lets `fn(hwc_array, ...)` take every image kind: a PIL image goes to the function of the
    same name of the PIL backend (pil_image.py); a CHW Tensor to `tensor(chw, ...)` where Paddle's
    Tensor backend computes differently, else it is computed as its HWC array and comes back as
    a CHW Tensor; anything else is a TypeError."""
    if fn is None:
        return functools.partial(image_op, tensor=tensor)

    @functools.wraps(fn)
    def wrapper(img, *args, **kwargs):
        check_image(img, fn.__name__)
        if is_pil_image(img):
            return forward_call(fn.__name__, getattr(pil_backend(), fn.__name__), img, *args,
                                **kwargs)
        if is_tensor(img):
            if len(img.shape) != 3:
                raise ValueError(
                    f"{fn.__name__}: a Tensor image must be CHW, got shape {list(img.shape)}"
                )
            if tensor is not None:
                return forward_call(fn.__name__, tensor, img, *args, **kwargs)
            out = forward_call(fn.__name__, fn, img.numpy().transpose(1, 2, 0), *args, **kwargs)
            return tensor_from(out.transpose(2, 0, 1))
        return forward_call(fn.__name__, fn, img, *args, **kwargs)

    return wrapper
