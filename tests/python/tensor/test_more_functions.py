"""Less common Paddle functions built from other ops: log2/log10/trunc, add_n,
logaddexp, count_nonzero, nan_to_num, roll, moveaxis, take_along_axis, masked_fill,
diag, trace: values vs numpy, gradients vs torch."""
import numpy as np
import torch

import skiff
from helpers import check_grad, rand


def test_math_extras():
    a = rand((3, 4), "float64", 1, 0.1, 5)
    check_grad(skiff.log2, torch.log2, a)
    check_grad(skiff.log10, torch.log10, a)
    b = rand((3, 4), "float64", 2, -3, 3)
    np.testing.assert_array_equal(skiff.trunc(skiff.to_tensor(b)).numpy(), np.trunc(b))
    check_grad(skiff.logaddexp, torch.logaddexp, a, b)
    check_grad(lambda x, y: skiff.add_n([x, y, x]), lambda x, y: x + y + x, a, b)
    x = skiff.to_tensor(np.array([[0, 1, 2], [0, 0, 3]]))
    assert skiff.count_nonzero(x).item() == 3 and skiff.count_nonzero(x, 1).tolist() == [2, 1]
    c = np.array([np.nan, np.inf, -np.inf, 1.0], "float32")
    np.testing.assert_array_equal(skiff.nan_to_num(skiff.to_tensor(c)).numpy(), np.nan_to_num(c))
    np.testing.assert_array_equal(skiff.nan_to_num(skiff.to_tensor(c), 1.0, 2.0, -2.0).numpy(),
                                  [1, 2, -2, 1])
    np.testing.assert_array_equal(skiff.clamp(skiff.to_tensor(b), -1, 1).numpy(), b.clip(-1, 1))


def test_roll_moveaxis():
    a = rand((3, 4, 5), "float64", 3)
    check_grad(lambda x: skiff.roll(x, 2, 1), lambda t: torch.roll(t, 2, 1), a)
    check_grad(lambda x: skiff.roll(x, [-1, 7], [0, 2]), lambda t: torch.roll(t, (-1, 7), (0, 2)),
               a)
    np.testing.assert_array_equal(skiff.roll(skiff.to_tensor(a), 5).numpy(), np.roll(a, 5))
    np.testing.assert_array_equal(skiff.moveaxis(skiff.to_tensor(a), [0, 1], [2, 0]).numpy(),
                                  np.moveaxis(a, [0, 1], [2, 0]))


def test_take_along_axis_and_masked_fill():
    a = rand((3, 5), "float64", 4)
    idx = np.array([[0, 4], [2, 2], [1, 3]])
    check_grad(lambda x: skiff.take_along_axis(x, skiff.to_tensor(idx), 1),
               lambda t: torch.take_along_dim(t, torch.tensor(idx), 1), a)
    idx0 = np.array([[2, 0, 1, 1, 0]])
    np.testing.assert_array_equal(
        skiff.take_along_axis(skiff.to_tensor(a), skiff.to_tensor(idx0), 0).numpy(),
        np.take_along_axis(a, idx0, 0))
    mask = a > 0
    np.testing.assert_array_equal(
        skiff.masked_fill(skiff.to_tensor(a), skiff.to_tensor(mask), -1.0).numpy(),
        np.where(mask, -1.0, a))


def test_diag_and_trace():
    v = rand((3,), "float64", 5)
    for k in (0, 1, -2):
        np.testing.assert_array_equal(skiff.diag(skiff.to_tensor(v), k).numpy(), np.diag(v, k))
    m = rand((4, 5), "float64", 6)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(skiff.diag(skiff.to_tensor(m), k).numpy(), np.diag(m, k))
    check_grad(lambda x: skiff.diag(x, 1), lambda t: torch.diag(t, 1), m)
    check_grad(lambda x: skiff.trace(x).reshape([1]), lambda t: torch.trace(t).reshape(1), m)
