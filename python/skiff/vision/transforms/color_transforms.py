"""Random colour transforms: brightness, contrast, saturation, hue and ColorJitter.

Each draws its factor with `random.uniform` when applied, and ColorJitter shuffles its four
parts with `random.shuffle`, as Paddle does, so `random.seed` repeats them.
"""

import numbers
import random

from . import functional as F
from .transforms import BaseTransform, Compose, _unchanged

__all__ = [
    "BrightnessTransform",
    "ContrastTransform",
    "SaturationTransform",
    "HueTransform",
    "ColorJitter",
]


def _factor_range(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    """[lo, hi] from a number v ([center - v, center + v]) or a pair; None when it is no-op."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative, got {value}")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        value = list(value)
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2, "
                        f"got {value!r}")
    if not bound[0] <= value[0] <= value[1] <= bound[1]:
        raise ValueError(f"{name} values should be between {bound}, got {value}")
    if value[0] == value[1] == center:
        return None
    return value


class _RandomFactorTransform(BaseTransform):
    """Applies `adjust(image, factor)` with factor = random.uniform over the value range."""

    name = ""
    center = 1.0
    bound = (0, float("inf"))

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, self.name, self.center, self.bound,
                                   clip_first_on_zero=self.center != 0)

    def _apply_image(self, image):
        if self.value is None:
            return _unchanged(image)
        return self.adjust(image, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_RandomFactorTransform):
    """Scales brightness by a factor drawn from [max(0, 1 - value), 1 + value] (or a pair)."""

    name = "brightness"
    adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_RandomFactorTransform):
    """Scales contrast by a factor drawn from [max(0, 1 - value), 1 + value] (or a pair)."""

    name = "contrast"
    adjust = staticmethod(F.adjust_contrast)


class SaturationTransform(_RandomFactorTransform):
    """Scales saturation by a factor drawn from [max(0, 1 - value), 1 + value] (or a pair)."""

    name = "saturation"
    adjust = staticmethod(F.adjust_saturation)


class HueTransform(_RandomFactorTransform):
    """Turns the hue by a factor drawn from [-value, value] (or a pair), within [-0.5, 0.5]."""

    name = "hue"
    center = 0.0
    bound = (-0.5, 0.5)
    adjust = staticmethod(F.adjust_hue)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue transforms in a random order per image."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        parts = ((BrightnessTransform, brightness), (ContrastTransform, contrast),
                 (SaturationTransform, saturation), (HueTransform, hue))
        self._parts = [kind(value) for kind, value in parts if value is not None]

    def _apply_image(self, image):
        order = list(self._parts)
        random.shuffle(order)
        return Compose(order)(image)
