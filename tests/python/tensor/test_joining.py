"""Stacking, splitting, broadcasting and repeating (skiff/tensor/joining.py): hstack/vstack/
dstack/column_stack, tensor_split, hsplit/vsplit/dsplit, broadcast_shapes/broadcast_tensors,
repeat_interleave: values vs numpy/paddle, gradients vs torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


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
