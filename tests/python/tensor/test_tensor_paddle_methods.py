"""Tensor methods of Paddle 3.x (skiff/tensor/attributes.py): requires_grad, the memory
description, new_*, to, repeat, split_with_sizes, the diagonal fills and random_; values
(and gradients) vs paddle."""
import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")

A = np.arange(12, dtype="float32").reshape(3, 4)


def _both(fn, a=A):
    got, want = fn(skiff, skiff.to_tensor(a)), fn(paddle, paddle.to_tensor(a))
    return got, want


def _same(got, want):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif hasattr(want, "numpy"):
        assert got.dtype.name == str(want.dtype).replace("paddle.", "")
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        assert got == want


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.element_size(), lambda lib, x: x.itemsize, lambda lib, x: x.stride(),
    lambda lib, x: x.stride(0), lambda lib, x: x.get_strides(), lambda lib, x: x.is_contiguous(),
    lambda lib, x: x.contiguous(), lambda lib, x: x.requires_grad, lambda lib, x: x.layout,
    lambda lib, x: x.astype("int8").element_size(), lambda lib, x: x.astype("float64").itemsize,
    lambda lib, x: x.new_ones([2]), lambda lib, x: x.new_zeros([2, 1], dtype="int64"),
    lambda lib, x: x.new_full([2], 3.5), lambda lib, x: x.new_empty([0, 2]).shape,
    lambda lib, x: x.to("float64"), lambda lib, x: x.to("cpu"), lambda lib, x: x.to(lib.int32),
    lambda lib, x: x.to("cpu", "int64"), lambda lib, x: x.to(dtype="float64"),
    lambda lib, x: x.to(lib.ones([1], "int32")),
    lambda lib, x: x.repeat(2, 1), lambda lib, x: x.repeat([1, 2, 2]),
    lambda lib, x: x.split_with_sizes([1, 3], dim=1),
    lambda lib, x: x.fill_diagonal_tensor(lib.to_tensor([7.0, 8.0, 9.0])),
    lambda lib, x: x.fill_diagonal_tensor(lib.to_tensor([7.0, 8.0]), offset=2),
])
def test_matches_paddle(fn):
    _same(*_both(fn))


@pytest.mark.parametrize("shape,kw", [([3, 3], {}), ([2, 4], {"offset": 1}),
                                      ([7, 3], {"wrap": True}), ([7, 3], {}),
                                      ([3, 3, 3], {})])
def test_fill_diagonal_(shape, kw):
    def run(lib, x):
        out = x.fill_diagonal_(-1.0, **kw)
        assert out is x
        return x
    _same(*_both(run, np.zeros(shape, "float32")))


def test_requires_grad_is_the_inverse_of_stop_gradient():
    x = skiff.ones([2])
    x.requires_grad = True
    assert not x.stop_gradient
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    assert x.requires_grad_(False) is x and x.stop_gradient


def test_repeat_and_split_with_sizes_gradients():
    def run(lib):
        x = lib.to_tensor(A, stop_gradient=False)
        a, b = x.repeat(2, 1).split_with_sizes([1, 3], dim=1)
        (a.sum() * 2 + (b * b).sum()).backward()
        return x.grad.numpy()
    np.testing.assert_allclose(run(skiff), run(paddle))


def test_data_ptr_and_random_():
    x = skiff.zeros([100])
    assert isinstance(x.data_ptr(), int) and x.data_ptr() != 0
    x.random_(2, 5)
    v = x.numpy()
    assert set(np.unique(v)) <= {2.0, 3.0, 4.0} and len(np.unique(v)) == 3
