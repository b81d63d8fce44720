"""Value clean-up, differences and integrals (skiff/tensor/numeric.py): nan_to_num
against paddle, diff (with prepend/append, bool inputs) against torch, trapezoid and
cumulative_trapezoid against paddle and torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand

X = rand((3, 4), "float64")


def test_nan_to_num_matches_paddle():
    a = np.array([np.nan, np.inf, -np.inf, 1.5], "float32")
    for kw in [{}, dict(nan=1.0, posinf=9.0, neginf=-9.0)]:
        got = skiff.nan_to_num(skiff.to_tensor(a), **kw)
        want = paddle.nan_to_num(paddle.to_tensor(a), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = skiff.to_tensor(a.astype("float64"))
    x.nan_to_num_(nan=2.0)
    assert x.numpy()[0] == 2.0 and x.numpy()[1] == np.finfo("float64").max
    ints = skiff.to_tensor([1, 2])
    assert skiff.nan_to_num(ints).numpy().tolist() == [1, 2]
    check_grad(skiff.nan_to_num, torch.nan_to_num, rand((3,), "float64"))


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 1), (1, 0), (3, 1)])
def test_diff_matches_torch(n, axis):
    a = rand((3, 5), "float64")
    check_grad(lambda t: skiff.diff(t, n, axis), lambda t: torch.diff(t, n, axis), a)


def test_diff_prepend_append_and_bool():
    a = rand((2, 3), "float64")
    pre, app = rand((2, 1), "float64", 2), rand((2, 2), "float64", 3)
    got = skiff.diff(skiff.to_tensor(a), 1, 1, skiff.to_tensor(pre), skiff.to_tensor(app))
    np.testing.assert_allclose(got.numpy(), np.diff(a, 1, 1, prepend=pre, append=app))
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(skiff.diff(skiff.to_tensor(b)).numpy(), np.diff(b))
    with pytest.raises(skiff.Error, match="diff"):
        skiff.diff(skiff.to_tensor(1.0))


def test_trapezoid_and_cumulative():
    y = rand((3, 5), "float64", 1)
    xs = np.sort(rand((5,), "float64", 2))
    xfull = np.sort(rand((3, 5), "float64", 3), axis=1)
    check_grad(lambda t: skiff.trapezoid(t), lambda t: torch.trapezoid(t), y)
    check_grad(lambda t: skiff.trapezoid(t, dx=0.5, axis=0),
               lambda t: torch.trapezoid(t, dx=0.5, dim=0), y)
    check_grad(lambda t, x: skiff.trapezoid(t, x), lambda t, x: torch.trapezoid(t, x), y, xs)
    check_grad(lambda t, x: skiff.cumulative_trapezoid(t, x),
               lambda t, x: torch.cumulative_trapezoid(t, x), y, xfull)
    check_grad(lambda t: skiff.cumulative_trapezoid(t, dx=2.0, axis=0),
               lambda t: torch.cumulative_trapezoid(t, dx=2.0, dim=0), y)
    got = skiff.cumulative_trapezoid(skiff.to_tensor(y), skiff.to_tensor(xs))
    want = paddle.cumulative_trapezoid(paddle.to_tensor(y), paddle.to_tensor(xs))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="trapezoid: give x or dx"):
        skiff.trapezoid(skiff.to_tensor(y), skiff.to_tensor(xs), 1.0)
    with pytest.raises(TypeError, match="trapezoid: y must be a float"):
        skiff.trapezoid(skiff.to_tensor([1, 2]))
