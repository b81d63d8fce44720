"""Vision datasets, image transforms (numpy based) and detection operators (`ops`) in
Paddle's `paddle.vision` API.

    from skiff.vision import datasets, transforms
    train = datasets.FashionMNIST(mode="train", transform=transforms.ToTensor())
"""

from . import datasets, ops, transforms
from .datasets import MNIST, FashionMNIST
from .image import get_image_backend, image_load, set_image_backend

__all__ = [
    "MNIST",
    "FashionMNIST",
    "datasets",
    "get_image_backend",
    "image_load",
    "ops",
    "set_image_backend",
    "transforms",
]
