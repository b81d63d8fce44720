"""pytest setup for the Python package: import skiff from this checkout's python/ folder."""

import pathlib
import sys

import numpy as np
import pytest

PYTHON_ROOT = pathlib.Path(__file__).resolve().parents[2] / "python"
sys.path.insert(0, str(PYTHON_ROOT))


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
