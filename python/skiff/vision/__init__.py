"""Vision datasets, image transforms, classification models (`models`) and detection
operators (`ops`) in Paddle's `paddle.vision` API.

    from skiff.vision import datasets, models, transforms
    train = datasets.FashionMNIST(mode="train", transform=transforms.ToTensor())
    model = models.LeNet()
"""

from . import datasets, models, ops, transforms
from .datasets import MNIST, FashionMNIST
from .image import get_image_backend, image_load, set_image_backend
from .models import *  # noqa: F401,F403  (Paddle's paddle.vision exports the models too)
from .models import __all__ as _models_all

__all__ = _models_all + [
    "MNIST",
    "FashionMNIST",
    "datasets",
    "get_image_backend",
    "image_load",
    "models",
    "ops",
    "set_image_backend",
    "transforms",
]
