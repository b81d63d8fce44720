"""pytest setup for the Python package: import skiff from a build tree's python/ folder
(SKIFF_BUILD_DIR, default <checkout>/build), where the package sits beside skiff._C."""

import pathlib
import sys

import numpy as np
import pytest

import os

CHECKOUT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", CHECKOUT / "build"))
sys.path.insert(0, str(BUILD_DIR / "python"))


def _to_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    if callable(getattr(value, "numpy", None)):
        return np.asarray(value.numpy())
    return np.asarray(value)


@pytest.fixture(scope="session")
def as_numpy():
    """Function: a batch field as numpy, whether the DataLoader yielded arrays or Tensors."""
    return _to_numpy


@pytest.fixture(scope="session")
def paddle():
    """The PaddlePaddle module used as a reference; tests using it skip where it is missing."""
    return pytest.importorskip("paddle")
