"""paddle.vision.transforms: image transforms of PIL images, numpy arrays (HW/HWC) and CHW Tensors.

    from skiff.vision import transforms as T
    transform = T.Compose([T.RandomResizedCrop(32), T.ColorJitter(0.4, 0.4, 0.4),
                           T.ToTensor(), T.Normalize(0.5, 0.5)])

Each transform returns the kind of image it was given: a PIL image (computed by Pillow, as
Paddle's PIL backend), a numpy array, or a CHW Tensor; ToTensor returns a Tensor. Random
transforms draw from Python's `random` and numpy's global generator in Paddle's order:
`random.seed(n); np.random.seed(n)` repeats them.
"""

from . import functional
from .color_transforms import (
    BrightnessTransform,
    ColorJitter,
    ContrastTransform,
    HueTransform,
    SaturationTransform,
)
from .functional import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    affine,
    center_crop,
    crop,
    erase,
    hflip,
    normalize,
    pad,
    perspective,
    resize,
    rotate,
    to_grayscale,
    to_tensor,
    vflip,
)
from .transforms import (
    BaseTransform,
    CenterCrop,
    Compose,
    Grayscale,
    Normalize,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    Resize,
    ToTensor,
    Transpose,
)
from .warp_transforms import RandomAffine, RandomErasing, RandomPerspective, RandomRotation

__all__ = [
    "BaseTransform",
    "Compose",
    "Resize",
    "RandomResizedCrop",
    "CenterCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Transpose",
    "Normalize",
    "BrightnessTransform",
    "SaturationTransform",
    "ContrastTransform",
    "HueTransform",
    "ColorJitter",
    "RandomCrop",
    "Pad",
    "RandomAffine",
    "RandomRotation",
    "RandomPerspective",
    "Grayscale",
    "ToTensor",
    "RandomErasing",
    "to_tensor",
    "hflip",
    "vflip",
    "resize",
    "pad",
    "affine",
    "rotate",
    "perspective",
    "to_grayscale",
    "crop",
    "center_crop",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_hue",
    "normalize",
    "erase",
]

from ...framework.tensor_params import check_classes as _check_classes  # noqa: E402
from ...framework.tensor_params import check_exports as _check_exports  # noqa: E402

_check_exports(globals(), tensors=False)  # a failed call names the argument of the wrong kind
_check_classes(globals())  # and so do failed constructions and transform calls
