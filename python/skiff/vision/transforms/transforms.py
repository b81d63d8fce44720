"""Transform classes of paddle.vision.transforms: composition, layout, crops, flips and padding.

    transform = Compose([RandomResizedCrop(224), RandomHorizontalFlip(), ToTensor()])
    chw = transform(pil_image)        # float32 Tensor [3, 224, 224]

Inputs are PIL images, numpy HW/HWC arrays or CHW skiff Tensors; each transform returns the
kind it was given (ToTensor a Tensor, Transpose and Normalize of a PIL image an array).
Random choices use Python's `random` and numpy's global generator exactly as Paddle does,
so seeding both (random.seed, np.random.seed) repeats them, and gives Paddle's choices.
"""

import math
import numbers
import random
from collections.abc import Sequence

import numpy as np

from ...framework import arguments
from . import functional as F
from .image_args import RESIZE_INTERPOLATIONS, check_grey_channels, check_interpolation, \
    check_pad_mode, number_pair, padding_sides
from .image_input import as_array, check_image, image_size, is_tensor, tensor_from

__all__ = [
    "BaseTransform",
    "Compose",
    "ToTensor",
    "Normalize",
    "Resize",
    "Transpose",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "CenterCrop",
    "Pad",
    "RandomCrop",
    "RandomResizedCrop",
    "Grayscale",
]


def _unchanged(image):
    """An image a transform leaves as it is (checked to be an image)."""
    check_image(image, "transform")
    return image


def _check_prob(prob, name="prob", owner="transform"):
    """A probability (a number in [0, 1]) given to the transform ``owner``."""
    return arguments.real(owner, name, prob, low=0, high=1)


def _size_pair(size, name):
    """(height, width) from an int or a pair."""
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return tuple(arguments.integer(name, f"size[{i}]", s) for i, s in enumerate(size))
    if isinstance(size, numbers.Real) and not isinstance(size, bool):
        return int(size), int(size)
    raise TypeError(f"{name}: size must be an int or a (height, width) pair, got {size!r}")


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
        if not isinstance(transforms, (list, tuple)):
            raise arguments.ArgumentTypeError(f"Compose: transforms must be a list of "
                                              f"callables, got {type(transforms).__name__}")
        for i, t in enumerate(transforms):
            if not callable(t):
                raise arguments.ArgumentTypeError(f"Compose: transforms[{i}] must be "
                                                  f"callable, got {type(t).__name__}")
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
    """PIL image or HW/HWC array -> CHW (data_format='CHW') or HWC Tensor; uint8 -> float32 / 255."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        F._check_format(data_format)
        self.data_format = data_format

    def _apply_image(self, image):
        return F.to_tensor(image, self.data_format)


class Normalize(BaseTransform):
    """(image - mean) / std per channel of a CHW or HWC image (see `normalize`)."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        F._check_format(data_format)
        self.mean, self.std = mean, std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, image):
        return F.normalize(image, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resizes to `size` ((h, w), or an int for the shorter side); interpolation 'nearest' or
    'bilinear', and for PIL images also 'bicubic', 'box', 'lanczos' or 'hamming'."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        check_interpolation(interpolation, "Resize", RESIZE_INTERPOLATIONS)
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, image):
        return F.resize(image, self.size, self.interpolation)


class _RandomFlip(BaseTransform):
    """Flips with probability `prob`, drawn once per call with `random.random()`."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob, "prob", type(self).__name__)

    def _get_params(self, inputs):
        return random.random() < self.prob


class RandomHorizontalFlip(_RandomFlip):
    """Mirrors the image left to right with probability `prob` (drawn with `random.random()`)."""

    def _apply_image(self, image):
        return F.hflip(image) if self.params else _unchanged(image)


class RandomVerticalFlip(_RandomFlip):
    """Mirrors the image top to bottom with probability `prob` (drawn with `random.random()`)."""

    def _apply_image(self, image):
        return F.vflip(image) if self.params else _unchanged(image)


class Transpose(BaseTransform):
    """Permutes the axes of an HWC image (default HWC -> CHW); an HW image counts as HW1."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        if not isinstance(order, (list, tuple)) or sorted(order) != list(range(len(order))):
            raise ValueError(f"Transpose: order must be a permutation of the axes, such as "
                             f"(2, 0, 1), got {order!r}")
        self.order = tuple(int(axis) for axis in order)

    def _apply_image(self, image):
        if is_tensor(image):
            return tensor_from(image.numpy().transpose(self.order))
        arr = as_array(image, "Transpose")
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return arr.transpose(self.order)


class CenterCrop(BaseTransform):
    """Crops the centred `size` (int or (h, w)) window (see functional.center_crop)."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "CenterCrop")

    def _apply_image(self, image):
        return F.center_crop(image, self.size)


class Pad(BaseTransform):
    """Pads the image by `padding` with `fill` or the given `padding_mode` (see functional.pad)."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        padding_sides(padding, "Pad")
        check_pad_mode(padding_mode, "Pad")
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, image):
        return F.pad(image, self.padding, self.fill, self.padding_mode)


class RandomCrop(BaseTransform):
    """Crops a random `size` window, after optional `padding` and (pad_if_needed) padding of
    a side shorter than the crop on both ends; offsets come from `random.randint`."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant",
                 keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "RandomCrop")
        if padding is not None:
            padding_sides(padding, "RandomCrop")
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = check_pad_mode(padding_mode, "RandomCrop")

    def _get_param(self, image, output_size):
        width, height = image_size(image)
        crop_h, crop_w = output_size
        if width == crop_w and height == crop_h:
            return 0, 0, height, width
        if crop_h > height or crop_w > width:
            raise ValueError(
                f"RandomCrop: crop size {[crop_h, crop_w]} is larger than the (padded) image "
                f"{[height, width]}; use padding or pad_if_needed=True"
            )
        return random.randint(0, height - crop_h), random.randint(0, width - crop_w), crop_h, crop_w

    def _apply_image(self, image):
        if self.padding is not None:
            image = F.pad(image, self.padding, self.fill, self.padding_mode)
        width, height = image_size(image)
        if self.pad_if_needed and width < self.size[1]:
            image = F.pad(image, (self.size[1] - width, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            image = F.pad(image, (0, self.size[0] - height), self.fill, self.padding_mode)
        return F.crop(image, *self._get_param(image, self.size))


class RandomResizedCrop(BaseTransform):
    """Crops a random window of `scale` times the area and aspect ratio (w / h) in `ratio`,
    then resizes it to `size`; after 10 failed draws it takes the largest centred window
    whose aspect ratio is within `ratio`. Draws: numpy for area and ratio, random for offsets."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = _size_pair(size, "RandomResizedCrop")
        scale = number_pair(scale, "scale", "RandomResizedCrop")
        ratio = number_pair(ratio, "ratio", "RandomResizedCrop")
        if scale[0] > scale[1]:
            raise ValueError(f"RandomResizedCrop: scale should be of kind (min, max), got {scale}")
        if ratio[0] > ratio[1] or ratio[0] <= 0:
            raise ValueError(f"RandomResizedCrop: ratio should be of kind (min, max) with min > 0, "
                             f"got {ratio}")
        check_interpolation(interpolation, "RandomResizedCrop", RESIZE_INTERPOLATIONS)
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, image, attempts=10):
        width, height = image_size(image)
        area = height * width
        log_ratio = tuple(math.log(x) for x in self.ratio)
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, image):
        cropped = F.crop(image, *self._get_param(image))
        return F.resize(cropped, self.size, self.interpolation)


class Grayscale(BaseTransform):
    """Converts an RGB image to grey with 1 or 3 channels (see functional.to_grayscale)."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = check_grey_channels(num_output_channels, "Grayscale")

    def _apply_image(self, image):
        return F.to_grayscale(image, self.num_output_channels)
