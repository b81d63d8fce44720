"""Comparisons and logical operators (skiff/tensor/logic.py): comparisons and their
operators, logical ops, isclose/allclose (values vs numpy/torch); Paddle's comparison
aliases and in-place forms, isin/isposinf/isneginf/isreal and the dtype predicates (values
vs paddle/numpy, errors)."""
import numpy as np
import paddle
import pytest

import skiff

from tensor_reference import rand


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


def test_comparison_aliases_match_paddle():
    a, b = rand((3, 4), seed=1), rand((4,), seed=2)
    for name in ["gt", "ge", "lt", "le", "eq", "ne", "less", "greater"]:
        got = getattr(skiff, name)(skiff.to_tensor(a), skiff.to_tensor(b)).numpy()
        want = getattr(paddle, name)(paddle.to_tensor(a), paddle.to_tensor(b)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert skiff.to_tensor(a).gt(0.5).numpy().tolist() == (a > 0.5).tolist()


@pytest.mark.parametrize("name", ["equal_", "not_equal_", "less_than_", "less_equal_",
                                  "greater_than_", "greater_equal_", "less_",
                                  "logical_and_", "logical_or_", "logical_xor_"])
def test_in_place_comparisons_write_x(name):
    a, b = np.array([1.0, 2.0, 0.0]), np.array([2.0, 2.0, 2.0])
    x = skiff.to_tensor(a)
    out = getattr(skiff, name)(x, skiff.to_tensor(b))
    px = paddle.to_tensor(a)
    getattr(paddle, name)(px, paddle.to_tensor(b))
    assert out is x
    np.testing.assert_array_equal(x.numpy(), px.numpy())
    assert x.dtype == skiff.bool


def test_logical_not_in_place():
    x = skiff.to_tensor([True, False])
    x.logical_not_()
    assert x.numpy().tolist() == [False, True]


def test_isin_and_infinities():
    x = np.array([[1, 2, 5], [3, 4, 2]])
    got = skiff.isin(skiff.to_tensor(x), skiff.to_tensor([2, 4, 9]))
    np.testing.assert_array_equal(got.numpy(), np.isin(x, [2, 4, 9]))
    inv = skiff.to_tensor(x).isin(skiff.to_tensor([2, 4]), invert=True)
    np.testing.assert_array_equal(inv.numpy(), ~np.isin(x, [2, 4]))
    f = np.array([np.inf, -np.inf, 1.0, np.nan])
    np.testing.assert_array_equal(skiff.isposinf(skiff.to_tensor(f)).numpy(), np.isposinf(f))
    np.testing.assert_array_equal(skiff.isneginf(skiff.to_tensor(f)).numpy(), np.isneginf(f))
    assert not skiff.isposinf(skiff.to_tensor([1, 2])).numpy().any()
    assert skiff.isreal(skiff.to_tensor([1.5, 2.0])).numpy().all()


def test_dtype_predicates():
    assert skiff.is_floating_point(skiff.ones([2])) and not skiff.is_integer(skiff.ones([2]))
    assert skiff.is_integer(skiff.to_tensor([1], dtype="int32"))
    assert not skiff.is_integer(skiff.to_tensor([True]))
    assert skiff.is_complex(skiff.ones([1])) is False
    with pytest.raises(TypeError, match="is_complex"):
        skiff.is_complex(3)


def test_isin_of_unique_inputs_sorts_once_as_paddle_does():
    rng = np.random.RandomState(0)
    for _ in range(10):
        x = rng.permutation(20)[:12].reshape(4, 3).astype("float32")
        t = rng.permutation(20)[:5].astype("float32")
        for invert in (False, True):
            ours = skiff.isin(skiff.to_tensor(x), skiff.to_tensor(t), assume_unique=True,
                              invert=invert)
            theirs = paddle.isin(paddle.to_tensor(x), paddle.to_tensor(t), assume_unique=True,
                                 invert=invert)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
            np.testing.assert_array_equal(ours.numpy(), np.isin(x, t, invert=invert))
