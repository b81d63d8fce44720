"""Tensor indexing against numpy over a table of index expressions (every dtype),
gradients through indexing vs torch, and index assignment (in place, broadcast values,
masks, integer rows, gradient flow into the assigned value)."""
import numpy as np
import pytest
import torch

import skiff
from tensor_reference import check_grad, rand


class _Index:
    def __getitem__(self, index):
        return index


I = _Index()
INDEXES = [
    I[1], I[-1], I[0, 2], I[-2, -1, 3], I[1:], I[:-1], I[::2], I[::-1], I[1::-1], I[-1:0:-2],
    I[5:100], I[3:1], I[:, 1], I[:, -2:], I[..., 0], I[..., ::-2], I[1, ..., 2], I[None],
    I[:, None, 1], I[..., None], I[None, ..., None], I[[0, 2]], I[[-1, 0, -1]], I[:, [2, 0]],
    I[np.array([[0, 1], [2, 0]])], I[:, :, [3, -4]], I[[0, 2], [1, 0]], I[[0, 1], :, [1, 3]],
    I[:, [0, 2], [1, 3]], I[1, [0, 2]], I[np.array([True, False, True])],
    I[:, np.array([False, True, True])], I[np.ones((3, 3), bool)],
    I[np.arange(36).reshape(3, 3, 4) % 5 == 0], I[:, :, [True, False, False, True]],
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_getitem_matches_numpy(dtype):
    a = np.arange(36).reshape(3, 3, 4)
    a = (a % 3 == 0) if dtype == "bool" else a.astype(dtype)
    x = skiff.to_tensor(a)
    for index in INDEXES:
        want = a[index]
        got = x[index]
        assert got.shape == list(want.shape), f"x[{index!r}]"
        np.testing.assert_array_equal(got.numpy(), want, err_msg=f"x[{index!r}]")


def test_tensor_indices_match_list_indices():
    a = rand((4, 5), seed=3)
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(x[skiff.to_tensor([3, -4])].numpy(), a[[3, -4]])
    np.testing.assert_array_equal(x[x > 0].numpy(), a[a > 0])
    np.testing.assert_array_equal(x[:, skiff.to_tensor(1)].numpy(), a[:, 1])
    np.testing.assert_array_equal(x[skiff.to_tensor([[0], [3]]), skiff.to_tensor([1, 2])].numpy(),
                                  a[[[0], [3]], [1, 2]])


def test_iteration_and_out_of_range():
    x = skiff.to_tensor(np.arange(6).reshape(3, 2))
    assert [r.tolist() for r in x] == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(skiff.Error, match="out of range"):
        x[:, -3]
    with pytest.raises(skiff.Error, match="out of range"):
        x[[0, 5]]
    with pytest.raises(skiff.Error):
        x[0, 0, 0]


@pytest.mark.parametrize("index", [I[1], I[:, 1:3], I[::2, ::3], I[..., None, -1], I[[2, 0, 2]],
                                   I[:, [1, 1, 3]], I[[0, 2], [1, 3]], I[1:, [0, 2]]])
def test_gradients_through_indexing(index):
    a = rand((3, 4), "float64", 4)
    check_grad(lambda x: x[index], lambda t: t[index], a)


@pytest.mark.parametrize("index", [I[::-1], I[::-2, 3:0:-2], I[-1, ::-3]])
def test_gradients_through_negative_steps(index):
    a = rand((3, 4), "float64", 7)
    x = skiff.to_tensor(a, stop_gradient=False)
    y = x[index]
    np.testing.assert_array_equal(y.numpy(), a[index])
    w = rand(tuple(y.shape), "float64", 8)
    (y * skiff.to_tensor(w)).sum().backward()
    want = np.zeros_like(a)
    want[index] = w
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_gradient_through_a_mask():
    a = rand((3, 4), "float64", 5)
    mask = a > 0
    check_grad(lambda x: x[skiff.to_tensor(mask)], lambda t: t[torch.tensor(mask)], a)


SETS = [
    (I[1], 7), (I[:, 0], -1), (I[::2, 1:], 5), (I[..., ::-1], np.arange(4.0)),
    (I[-1, -1], 9), (I[1:3], np.ones((1, 4))), (I[:, 2], np.array([1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_setitem_matches_numpy_in_place(dtype):
    for index, value in SETS:
        a = np.arange(12).reshape(3, 4).astype(dtype)
        x = skiff.to_tensor(a.copy())
        ptr = x._data_ptr()
        x[index] = skiff.to_tensor(np.asarray(value, dtype)) if isinstance(value, np.ndarray) \
            else value
        a[index] = value
        np.testing.assert_array_equal(x.numpy(), a, err_msg=f"x[{index!r}] = {value!r}")
        assert x._data_ptr() == ptr


def test_setitem_with_masks_and_rows():
    a = rand((3, 4), seed=6)
    x = skiff.to_tensor(a.copy())
    x[x < 0] = 0.0
    np.testing.assert_array_equal(x.numpy(), np.where(a < 0, 0, a))
    x[skiff.to_tensor([True, False, True])] = 2.0
    b = np.where(a < 0, 0, a).astype("float32")
    b[[0, 2]] = 2.0
    np.testing.assert_array_equal(x.numpy(), b)
    x[[1, 0]] = skiff.to_tensor(np.array([5.0, 6.0, 7.0, 8.0], "float32"))
    b[[1, 0]] = [5, 6, 7, 8]
    np.testing.assert_array_equal(x.numpy(), b)
    with pytest.raises(skiff.Error, match="index assignment"):
        x[:, [0, 1]] = 1.0


def test_setitem_gradient_flows_into_the_value():
    v = skiff.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    buf = skiff.zeros([2, 3], "float64")
    buf[1] = v * v
    assert not buf.stop_gradient
    (buf * skiff.to_tensor(np.array([[1.0, 1, 1], [1, 2, 3]]))).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [2.0, 8.0, 18.0])


def test_setitem_on_a_tensor_needing_grad_is_an_error():
    x = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(skiff.Error, match="set_value"):
        x[0] = 5.0
