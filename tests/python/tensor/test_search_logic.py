"""Comparisons, logical ops, argmax/argmin, topk, sort/argsort, where, nonzero and
masked_select: values vs numpy/torch, gradients of the differentiable ones."""
import numpy as np
import pytest
import torch

import skiff
from helpers import check_grad, rand


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_comparisons_and_operators(dtype):
    a = np.array([[1, 5, 3], [4, 2, 6]], dtype)
    b = np.array([4, 5, 1], dtype)
    x, y = skiff.to_tensor(a), skiff.to_tensor(b)
    for got, want in [
        (x == y, a == b), (x != y, a != b), (x < y, a < b), (x <= y, a <= b), (x > y, a > b),
        (x >= y, a >= b), (x == 5, a == 5), (x > 2.5, a > 2.5), (3 < x, 3 < a),
        (skiff.equal(x, y), a == b), (skiff.not_equal(x, 4), a != 4),
        (skiff.less_than(x, y), a < b), (skiff.less_equal(x, y), a <= b),
        (skiff.greater_than(x, y), a > b), (skiff.greater_equal(x, y), a >= b),
    ]:
        assert got.dtype == "bool"
        np.testing.assert_array_equal(got.numpy(), want)
    assert (x == None) is False and (x != None) is True  # noqa: E711
    assert skiff.equal_all(x, x).item() and not skiff.equal_all(x, x[:1]).item()


def test_logical_ops():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    x, y = skiff.to_tensor(a), skiff.to_tensor(b)
    np.testing.assert_array_equal(skiff.logical_and(x, y).numpy(), a & b)
    np.testing.assert_array_equal(skiff.logical_or(x, y).numpy(), a | b)
    np.testing.assert_array_equal(skiff.logical_xor(x, y).numpy(), a ^ b)
    np.testing.assert_array_equal(skiff.logical_not(x).numpy(), ~a)
    np.testing.assert_array_equal((x & y).numpy(), a & b)
    np.testing.assert_array_equal((x | y).numpy(), a | b)
    np.testing.assert_array_equal((~x).numpy(), ~a)
    np.testing.assert_array_equal(skiff.logical_and(skiff.to_tensor([2, 0]), 1).numpy(),
                                  [True, False])
    # on integers & is bitwise, as in Paddle
    np.testing.assert_array_equal((skiff.to_tensor([1, 2]) & skiff.to_tensor([1, 3])).numpy(),
                                  [1, 2])


def test_isclose_allclose():
    a = np.array([1.0, 2.0, np.nan])
    b = np.array([1.0 + 1e-9, 2.1, np.nan])
    x, y = skiff.to_tensor(a), skiff.to_tensor(b)
    np.testing.assert_array_equal(skiff.isclose(x, y).numpy(), np.isclose(a, b))
    np.testing.assert_array_equal(skiff.isclose(x, y, equal_nan=True).numpy(),
                                  np.isclose(a, b, equal_nan=True))
    assert not skiff.allclose(x, y).item()
    assert skiff.allclose(x[:1], y[:1]).item()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_argmax_argmin(dtype):
    a = (rand((3, 4, 5), "float64", 1) * 10).astype(dtype)
    x = skiff.to_tensor(a)
    assert skiff.argmax(x).shape == [] and skiff.argmax(x).item() == a.argmax()
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), a.argmax(1))
    np.testing.assert_array_equal(x.argmin(axis=-1, keepdim=True).numpy(),
                                  a.argmin(-1)[..., None])
    assert skiff.argmax(x, axis=0, dtype="int32").dtype == "int32"
    assert skiff.argmax(x, keepdim=True).shape == [1, 1, 1]


def test_topk_values_indices_and_grad():
    a = rand((4, 6), "float64", 2)
    vals, idx = skiff.topk(skiff.to_tensor(a), 3)
    tv, ti = torch.topk(torch.tensor(a), 3)
    np.testing.assert_array_equal(vals.numpy(), tv.numpy())
    np.testing.assert_array_equal(idx.numpy(), ti.numpy())
    vals, idx = skiff.to_tensor(a).topk(2, axis=0, largest=False)
    tv, ti = torch.topk(torch.tensor(a), 2, dim=0, largest=False)
    np.testing.assert_array_equal(idx.numpy(), ti.numpy())
    check_grad(lambda x: skiff.topk(x, 2, axis=0)[0], lambda t: torch.topk(t, 2, dim=0)[0], a)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(descending):
    a = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, np.nan, -1.0, 7.0]])
    x = skiff.to_tensor(a)
    got = skiff.sort(x, axis=1, descending=descending).numpy()
    want = -np.sort(-a, 1) if descending else np.sort(a, 1)
    if not descending:
        np.testing.assert_array_equal(got, want)  # NaN last, as numpy
    np.testing.assert_array_equal(got[0], want[0])
    order = skiff.argsort(x[0], descending=descending).numpy()
    assert order.tolist() == ([0, 2, 1, 3] if descending else [1, 3, 2, 0])  # stable
    b = rand((3, 5), "float64", 3)
    check_grad(lambda t: skiff.sort(t, axis=0, descending=descending),
               lambda t: torch.sort(t, dim=0, descending=descending)[0], b)
    ints = skiff.to_tensor([3, 1, 2])
    assert skiff.sort(ints).tolist() == [1, 2, 3] and ints.argsort().tolist() == [1, 2, 0]


def test_where_three_arguments_and_grads():
    c = rand((3, 4), seed=4) > 0
    a, b = rand((3, 4), "float64", 5), rand((4,), "float64", 6)
    cond = skiff.to_tensor(c)
    check_grad(lambda x, y: skiff.where(cond, x, y), lambda x, y: torch.where(torch.tensor(c), x, y),
               a, b)
    got = skiff.where(cond, skiff.to_tensor(a), 0.0)
    np.testing.assert_array_equal(got.numpy(), np.where(c, a, 0.0))
    got = skiff.where(cond, 1, skiff.to_tensor(np.zeros((3, 4), "int64")))
    assert got.dtype == "int64"
    np.testing.assert_array_equal(got.numpy(), c.astype("int64"))


def test_nonzero_and_masked_select():
    a = np.array([[0, 3, 0], [4, 0, 5]])
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(skiff.nonzero(x).numpy(), np.argwhere(a))
    rows, cols = skiff.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    rows, cols = skiff.where(x > 0)
    assert cols.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(skiff.masked_select(x, x > 3).numpy(), a[a > 3])
    b = rand((2, 3), "float64", 7)
    mask = skiff.to_tensor(np.array([True, False, True]))
    check_grad(lambda t: skiff.masked_select(t, mask),
               lambda t: torch.masked_select(t, torch.tensor([True, False, True])), b)
