"""`assert` in to_static code: on a Tensor it becomes an assert op, checked when the program
runs (the error names the line and shows the condition); on Python values it is checked
while tracing, as Python checks it."""
import numpy as np
import pytest

import skiff


def checked(x):
    assert skiff.all(x > -10.0), "x too small"
    assert x.shape[-1] == 2
    return x * 2.0


def test_a_tensor_assert_runs_with_the_program():
    f = skiff.jit.to_static(checked)
    np.testing.assert_allclose(f(skiff.to_tensor(np.array([1.0, 2.0], np.float32))).numpy(),
                               [2.0, 4.0])
    with pytest.raises(skiff.Error, match=r"test_jit_assert.py:11: assertion failed: x too "
                                          r"small(.|\n)*data: \[false\]"):
        f(skiff.to_tensor(np.array([1.0, -20.0], np.float32)))


def test_a_python_assert_is_checked_while_tracing():
    f = skiff.jit.to_static(checked)
    with pytest.raises(AssertionError):
        f(skiff.to_tensor(np.ones([3], np.float32)))
