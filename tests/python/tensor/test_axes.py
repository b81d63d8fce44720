"""Axis views (skiff/tensor/axes.py): permute, swapaxes, matrix_transpose, diagonal,
unflatten, view, atleast_Nd: values vs numpy/paddle, gradients vs torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand

A = rand((2, 3, 4), "float32")


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
