"""Fixtures of the transform tests that compare with paddle.vision.transforms: a 13x17 RGB
test image (test_transforms.py keeps its own smaller one) and Paddle's functional module."""
import numpy as np
import pytest


@pytest.fixture
def rgb():
    return np.random.default_rng(3).integers(0, 256, size=(13, 17, 3), dtype=np.uint8)


@pytest.fixture
def pf(paddle):
    return paddle.vision.transforms.functional
