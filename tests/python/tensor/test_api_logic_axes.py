"""Comparison aliases and in-place forms, isin/isposinf/..., axis views (permute,
swapaxes, diagonal, unflatten, view, atleast_Nd), stacking and splitting helpers:
values vs paddle/numpy, gradients vs torch, errors."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand

A = rand((2, 3, 4), "float32")


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


def test_axis_views_match_numpy():
    x = skiff.to_tensor(A)
    np.testing.assert_array_equal(skiff.permute(x, [2, 0, 1]).numpy(), A.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.permute(2, 0, 1).numpy(), A.transpose(2, 0, 1))
    np.testing.assert_array_equal(skiff.swapaxes(x, 0, 2).numpy(), A.swapaxes(0, 2))
    np.testing.assert_array_equal(skiff.swapdims(x, [1, 0, 2]).numpy(), A.transpose(1, 0, 2))
    np.testing.assert_array_equal(skiff.matrix_transpose(x).numpy(), A.swapaxes(1, 2))
    np.testing.assert_array_equal(skiff.unflatten(x, 2, [2, -1]).numpy(), A.reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(skiff.view(x, [4, 6]).numpy(), A.reshape(4, 6))
    np.testing.assert_array_equal(x.view_as(skiff.ones([6, 4])).numpy(), A.reshape(6, 4))
    np.testing.assert_array_equal(skiff.ravel(x).numpy(), A.ravel())
    np.testing.assert_array_equal(skiff.reverse(x, [0, 2]).numpy(), A[::-1, :, ::-1])
    assert skiff.tolist(x) == A.tolist() and x.tolist() == A.tolist()
    y = skiff.to_tensor(A)
    assert skiff.transpose_(y, [1, 0, 2]) is y and y.shape == [3, 2, 4]
    np.testing.assert_array_equal(y.numpy(), A.transpose(1, 0, 2))
    with pytest.raises(skiff.Error, match="view"):
        skiff.view(x, "int32")
    with pytest.raises(skiff.Error, match="matrix_transpose"):
        skiff.matrix_transpose(skiff.ones([3]))


@pytest.mark.parametrize("offset,a1,a2", [(0, 0, 1), (1, 1, 2), (-1, 2, 0), (5, 0, 2),
                                          (-2, -1, -2)])
def test_diagonal_values_and_gradients(offset, a1, a2):
    check_grad(lambda t: skiff.diagonal(t, offset, a1, a2),
               lambda t: torch.diagonal(t, offset, a1, a2), A.astype("float64"))
    with pytest.raises(skiff.Error, match="diagonal"):
        skiff.diagonal(skiff.to_tensor(A), 0, 1, 1)


def test_atleast_nd_shapes_match_paddle():
    for n in (1, 2, 3):
        for shape in ([], [3], [2, 3], [2, 3, 4]):
            a = np.ones(shape, "float32")
            got = getattr(skiff, f"atleast_{n}d")(skiff.to_tensor(a))
            want = getattr(paddle, f"atleast_{n}d")(paddle.to_tensor(a))
            assert got.shape == list(want.shape), (n, shape)
    both = skiff.atleast_2d(skiff.ones([2]), skiff.ones([]))
    assert isinstance(both, list) and [t.shape for t in both] == [[1, 2], [1, 1]]


def test_stacks_match_numpy_with_gradients():
    a, b = rand((2, 3), "float64", 1), rand((2, 3), "float64", 2)
    for name in ["hstack", "vstack", "dstack", "column_stack", "row_stack"]:
        ref = getattr(torch, name)
        check_grad(lambda x, y: getattr(skiff, name)([x, y]), lambda x, y: ref([x, y]), a, b)
    v = [skiff.to_tensor([1.0, 2.0]), skiff.to_tensor([3.0, 4.0])]
    np.testing.assert_array_equal(skiff.hstack(v).numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(skiff.column_stack(v).numpy(), [[1, 3], [2, 4]])
    np.testing.assert_array_equal(skiff.cat(v).numpy(), skiff.concatenate(v).numpy())


@pytest.mark.parametrize("arg", [3, 4, [2, 5], [-3, 2], [1, 1, 6]])
def test_tensor_split_matches_paddle(arg):
    a = np.arange(7 * 2, dtype="float32").reshape(7, 2)
    got = skiff.tensor_split(skiff.to_tensor(a), arg)
    want = paddle.tensor_split(paddle.to_tensor(a), arg)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_hsplit_vsplit_dsplit():
    a = np.arange(2 * 5 * 4, dtype="float32").reshape(2, 5, 4)
    x, p = skiff.to_tensor(a), paddle.to_tensor(a)
    for name, arg in [("hsplit", 2), ("vsplit", [1]), ("dsplit", [1, 3])]:
        got, want = getattr(skiff, name)(x, arg), getattr(paddle, name)(p, arg)
        assert [g.numpy().tolist() for g in got] == [w.numpy().tolist() for w in want]
    with pytest.raises(skiff.Error, match="dsplit"):
        skiff.dsplit(skiff.ones([2, 3]), 1)
    with pytest.raises(ValueError, match="tensor_split"):
        skiff.tensor_split(x, 0)


def test_broadcast_helpers():
    assert skiff.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert skiff.broadcast_shapes([1], [3, 1], [2, 1, 5]) == [2, 3, 5]
    with pytest.raises(ValueError, match="broadcast_shape"):
        skiff.broadcast_shape([2, 3], [4, 3])
    x, y = skiff.ones([3, 1]), skiff.zeros([2, 1, 4])
    bx, by = skiff.broadcast_tensors([x, y])
    assert bx.shape == by.shape == [2, 3, 4]


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 1), ([1, 0, 2], 1), ([2, 1], 0)])
def test_repeat_interleave_values_and_gradients(repeats, axis):
    a = rand((2, 3), "float64")
    rep_s = skiff.to_tensor(repeats) if isinstance(repeats, list) else repeats
    rep_t = torch.tensor(repeats) if isinstance(repeats, list) else repeats
    check_grad(lambda t: skiff.repeat_interleave(t, rep_s, axis),
               lambda t: torch.repeat_interleave(t, rep_t, axis), a)
