"""The image kinds the transforms accept and how they become HWC numpy arrays.

numpy arrays (HW or HWC) pass through; PIL images become numpy arrays (results stay numpy);
skiff Tensors are CHW: they are computed as HWC arrays and come back as CHW Tensors.
Integer images hold values in [0, 255], floating images in [0, 1] (where a range matters).
"""

import functools
import numbers
from collections.abc import Sequence

import numpy as np

from ..._C import Tensor
from ...framework.arguments import forward_call
from ...tensor.creation import to_tensor

__all__ = ["as_array", "fill_value", "image_size", "is_tensor", "max_value", "numpy_image_op"]


def is_tensor(img):
    """True for a skiff Tensor (a CHW image to the transforms)."""
    return isinstance(img, Tensor)


def as_array(img, where="transform"):
    """numpy arrays pass through; PIL images (anything with `__array_interface__`) convert."""
    if isinstance(img, np.ndarray):
        return img
    if hasattr(img, "__array_interface__") or hasattr(img, "getbands"):
        return np.asarray(img)
    raise TypeError(
        f"{where}: expected a numpy array, PIL image or CHW Tensor, got {type(img).__name__}"
    )


def image_size(img):
    """(width, height) of an HW/HWC array, a PIL image or a CHW Tensor."""
    if is_tensor(img):
        if len(img.shape) != 3:
            raise ValueError(f"a Tensor image must be CHW, got shape {list(img.shape)}")
        return int(img.shape[2]), int(img.shape[1])
    arr = as_array(img)
    if arr.ndim not in (2, 3):
        raise ValueError(f"expected an HW or HWC image, got shape {list(arr.shape)}")
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


def _tensor_from(chw):

    return to_tensor(np.ascontiguousarray(chw))


def numpy_image_op(fn):
    """Lets `fn(hwc_array, ...)` take a CHW Tensor (and return one) or a PIL image."""

    @functools.wraps(fn)
    def wrapper(img, *args, **kwargs):
        if is_tensor(img):
            arr = img.numpy()
            if arr.ndim != 3:
                raise ValueError(
                    f"{fn.__name__}: a Tensor image must be CHW, got shape {list(arr.shape)}"
                )
            out = forward_call(fn.__name__, fn, arr.transpose(1, 2, 0), *args, **kwargs)
            return _tensor_from(out.transpose(2, 0, 1))
        return forward_call(fn.__name__, fn, as_array(img, fn.__name__), *args, **kwargs)

    return wrapper
