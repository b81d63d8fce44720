"""Shared pieces of the transform tests that compare with paddle.vision.transforms: CHW/HWC
conversions, seeding both random sources, and a comparison that allows a small fraction of
differing pixels (the fixtures are in conftest.py)."""
import random

import numpy as np


def chw(paddle, hwc):
    return paddle.to_tensor(np.ascontiguousarray(hwc.transpose(2, 0, 1)))


def hwc(tensor):
    return tensor.numpy().transpose(1, 2, 0)


def seed(n):
    random.seed(n)
    np.random.seed(n)


def assert_mostly_equal(got, expected, max_fraction=0.01):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    differing = np.any(got != expected, axis=-1) if got.ndim == 3 else got != expected
    assert differing.mean() <= max_fraction, f"{differing.sum()} pixels differ"
