"""Random warps and erasing: RandomRotation, RandomAffine, RandomPerspective, RandomErasing.

Parameters are drawn in Paddle's order from Python's `random` (angles, shifts, corners,
the coin of `prob`) and numpy's global generator (RandomErasing's box and noise), so seeding
both repeats them.
"""

import numbers
import random
from collections.abc import Sequence

import numpy as np

from ...framework import arguments
from . import functional as F
from .image_args import WARP_INTERPOLATIONS, check_interpolation
from .image_input import as_array, image_size, is_pil_image, is_tensor
from .transforms import BaseTransform, _check_prob, _unchanged

__all__ = ["RandomRotation", "RandomAffine", "RandomPerspective", "RandomErasing"]

def _check_interpolation(interpolation, where):
    return check_interpolation(interpolation, where, WARP_INTERPOLATIONS)


def _check_sequence(x, name, sizes):
    if not isinstance(x, Sequence) or isinstance(x, str):
        raise TypeError(f"{name} should be a sequence of length {' or '.join(map(str, sizes))}")
    if len(x) not in sizes:
        raise ValueError(f"{name} should be a sequence of length {' or '.join(map(str, sizes))}, "
                         f"got {len(x)}")


def _symmetric_range(x, name, sizes=(2,)):
    """[-x, x] for a non-negative number, else the sequence as floats."""
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive, got {x}")
        return [-float(x), float(x)]
    _check_sequence(x, name, sizes)
    return [float(d) for d in x]


class RandomRotation(BaseTransform):
    """Rotates by an angle drawn from [-degrees, degrees] (or a pair) with `random.uniform`."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        super().__init__(keys)
        self.degrees = _symmetric_range(degrees, "degrees")
        self.interpolation = _check_interpolation(interpolation, "RandomRotation")
        self.expand, self.center, self.fill = expand, center, fill

    def _apply_image(self, image):
        angle = random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(image, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """Random rotation (degrees), translation (fractions of width, height), scale and shear
    ((x range) or (x range, y range)), drawn with `random.uniform` and applied by affine."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest",
                 fill=0, center=None, keys=None):
        super().__init__(keys)
        self.degrees = _symmetric_range(degrees, "degrees")
        self.interpolation = _check_interpolation(interpolation, "RandomAffine")
        if translate is not None:
            _check_sequence(translate, "translate", (2,))
            if not all(0.0 <= t <= 1.0 for t in translate):
                raise ValueError(f"translation values should be between 0 and 1, got {translate}")
        if scale is not None:
            _check_sequence(scale, "scale", (2,))
            if not all(s > 0 for s in scale):
                raise ValueError(f"scale values should be positive, got {scale}")
        self.translate, self.scale = translate, scale
        self.shear = None if shear is None else _symmetric_range(shear, "shear", (2, 4))
        if not isinstance(fill, (Sequence, numbers.Number)) or isinstance(fill, str):
            raise TypeError(f"Fill should be either a sequence or a number, got {fill!r}")
        if center is not None:
            _check_sequence(center, "center", (2,))
        self.fill, self.center = fill, center

    def _get_param(self, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)) for an image of (width, height)."""
        angle = random.uniform(self.degrees[0], self.degrees[1])
        translations = (0, 0)
        if self.translate is not None:
            max_dx = float(self.translate[0] * img_size[0])
            max_dy = float(self.translate[1] * img_size[1])
            translations = (int(random.uniform(-max_dx, max_dx)),
                            int(random.uniform(-max_dy, max_dy)))
        scale = 1.0
        if self.scale is not None:
            scale = random.uniform(self.scale[0], self.scale[1])
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = random.uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = random.uniform(self.shear[2], self.shear[3])
        return angle, translations, scale, tuple(shear)

    def _apply_image(self, image):
        angle, translate, scale, shear = self._get_param(list(image_size(image)))
        return F.affine(image, angle, list(translate), scale, list(shear),
                        interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomPerspective(BaseTransform):
    """With probability `prob`, moves each corner inwards by up to distortion_scale times half
    the image size (drawn with `random.uniform`) and warps the image to match."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0,
                 keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob, "prob", type(self).__name__)
        self.distortion_scale = _check_prob(distortion_scale, "distortion_scale",
                                            "RandomPerspective")
        self.interpolation = _check_interpolation(interpolation, "RandomPerspective")
        self.fill = fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and their random displaced targets."""
        width = arguments.integer("RandomPerspective.get_params", "width", width)
        height = arguments.integer("RandomPerspective.get_params", "height", height)
        distortion_scale = arguments.real("RandomPerspective.get_params", "distortion_scale",
                                          distortion_scale, low=0, high=1)
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(low, high):
            return int(random.uniform(low, high))

        topleft = [near(0, dx + 1), near(0, dy + 1)]
        topright = [near(width - dx - 1, width), near(0, dy + 1)]
        botright = [near(width - dx - 1, width), near(height - dy - 1, height)]
        botleft = [near(0, dx + 1), near(height - dy - 1, height)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def _apply_image(self, image):
        width, height = image_size(image)
        if random.random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(image, start, end, self.interpolation, self.fill)
        return _unchanged(image)


def _looks_chw(arr):
    """A float array shaped [1 or 3, H, W] with W not 1 or 3: ToTensor's (CHW) output."""
    return (arr.ndim == 3 and np.issubdtype(arr.dtype, np.floating) and arr.shape[0] in (1, 3)
            and arr.shape[2] not in (1, 3))


class RandomErasing(BaseTransform):
    """With probability `prob`, sets a random box (area fraction in `scale`, h / w in `ratio`)
    to `value`: a number, one per channel, or 'random' (normal noise, times 255 for HWC arrays).

    PIL images and HWC arrays are boxed as HWC; CHW Tensors, and float arrays shaped like a
    CHW image ([1 or 3, H, W]), as CHW.
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        self.prob = _check_prob(prob, "prob", type(self).__name__)
        if not isinstance(scale, (tuple, list)) or not 0 <= scale[0] <= scale[1] <= 1:
            raise ValueError(f"scale should be of kind (min, max) and in range [0, 1], got {scale}")
        if not isinstance(ratio, (tuple, list)) or not 0 <= ratio[0] <= ratio[1]:
            raise ValueError(f"ratio should be of kind (min, max), got {ratio}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"value must be 'random' when type is str, got {value!r}")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"value should be a number, tuple, list or str, got {value!r}")
        fill = [value] if isinstance(value, numbers.Number) else value
        if not isinstance(fill, str) and len(fill) not in (1, 3):
            raise ValueError("Value should be a single number or a sequence with length equals "
                             f"to image's channel, got {value!r}")
        self.scale, self.ratio, self.value, self.inplace = scale, ratio, value, inplace

    def _get_param(self, shape, channels_first):
        """(top, left, h, w, v) of the box, or None after 10 boxes that do not fit."""
        c, h, w = shape if channels_first else (shape[2], shape[0], shape[1])
        area, log_ratio = h * w, np.log(self.ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*self.scale) * area
            aspect_ratio = np.exp(np.random.uniform(*log_ratio))
            erase_h = int(round(np.sqrt(erase_area * aspect_ratio)))
            erase_w = int(round(np.sqrt(erase_area / aspect_ratio)))
            if erase_h >= h or erase_w >= w:
                continue
            if self.value == "random":
                noise_shape = [c, erase_h, erase_w] if channels_first else [erase_h, erase_w, c]
                v = np.random.normal(size=noise_shape) * (1 if channels_first else 255)
            else:
                v = np.asarray([self.value] if isinstance(self.value, numbers.Number)
                               else self.value)
                v = v[:, None, None] if channels_first else v[None, None, :]
            top = np.random.randint(0, h - erase_h + 1)
            left = np.random.randint(0, w - erase_w + 1)
            return top, left, erase_h, erase_w, v
        return None

    def _apply_image(self, image):
        if random.random() >= self.prob:
            return _unchanged(image)
        if is_tensor(image):
            box = self._get_param(tuple(image.shape), channels_first=True)
            return image if box is None else F.erase(image, *box, inplace=self.inplace)
        arr = as_array(image, "RandomErasing")
        if arr.ndim != 3:
            raise ValueError(f"RandomErasing expects an HWC or CHW image, got {list(arr.shape)}")
        channels_first = _looks_chw(arr) and not is_pil_image(image)
        box = self._get_param(arr.shape, channels_first)
        if box is None:
            return image
        if is_pil_image(image):
            return F.erase(image, *box)
        if not channels_first:
            return F.erase(arr, *box, inplace=self.inplace)
        top, left, h, w, v = box
        out = arr if self.inplace else arr.copy()
        out[:, top : top + h, left : left + w] = v
        return out
