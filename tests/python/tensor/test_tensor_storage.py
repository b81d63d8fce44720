"""Tensor.set_, resize_, reconstruct_from_, get_tensor, new_* with separate sizes and
tensor.create_tensor, against Paddle."""
import numpy as np
import paddle
import pytest

import skiff
from skiff.framework.arguments import ArgumentError


def _set_steps(lib):
    src = lib.to_tensor([[11.0, 22.0, 33.0]])
    src2 = lib.to_tensor([11.0, 22.0, 33.0, 44.0, 55.0, 66.0])
    seen = []
    for args in ((), (src,), (src, [2, 1]), (src2, [3], [2]), (src2, [5], None, 4),
                 (src2, [2, 2], [1, 2], 4)):
        x = lib.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0])
        x.set_(*args)
        seen.append((list(x.shape), x.numpy().copy()))
    return seen


def test_set_matches_paddle():
    for (shape, value), (p_shape, p_value) in zip(_set_steps(skiff), _set_steps(paddle)):
        assert shape == p_shape
        np.testing.assert_array_equal(value, p_value)


def test_set_to_the_source_layout_shares_memory():
    src = skiff.to_tensor([1.0, 2.0, 3.0])
    x = skiff.zeros([1])
    x.set_(src)
    assert x._is_shared_buffer_with(src)
    x.add_(skiff.ones_like(x))
    np.testing.assert_array_equal(src.numpy(), [2.0, 3.0, 4.0])


def test_set_checks_its_window():
    src = skiff.to_tensor([1.0, 2.0, 3.0])
    with pytest.raises(ArgumentError, match="reaches element 4"):
        skiff.zeros([1]).set_(src, shape=[3], stride=[2])
    with pytest.raises(ArgumentError, match="multiple of the element size 4"):
        skiff.zeros([1]).set_(src, shape=[1], offset=3)
    with pytest.raises(ArgumentError, match="source is int64 but x is float32"):
        skiff.zeros([1]).set_(skiff.to_tensor([1]))


def _resize_steps(lib):
    out = []
    for shape, fill in (([2, 1], False), ([2, 3], True), ([0], False)):
        x = lib.to_tensor([1.0, 2.0, 3.0])
        x.resize_(shape, fill_zero=fill)
        out.append((list(x.shape), x.numpy().copy()))
    return out


def test_resize_matches_paddle():
    for (shape, value), (p_shape, p_value) in zip(_resize_steps(skiff), _resize_steps(paddle)):
        assert shape == p_shape
        np.testing.assert_array_equal(value, p_value)


def test_reconstruct_from_and_get_tensor():
    t1 = skiff.to_tensor([1.0], stop_gradient=False)
    t1.reconstruct_from_(skiff.to_tensor([2.0]))
    np.testing.assert_array_equal(t1.numpy(), [2.0])
    dense = t1.get_tensor()
    assert dense.shape() == [1] and np.array(dense).tolist() == [2.0]
    dense.set(np.array([7.0], "float64"))
    assert t1.numpy().tolist() == [7.0] and t1.dtype == skiff.float32
    assert "- dtype: float32" in str(dense)


def test_new_tensors_take_a_size_as_one_list_or_as_ints():
    x = skiff.ones([2, 2])
    assert x.new_empty(3, 3).shape == paddle.ones([2, 2]).new_empty(3, 3).shape == [3, 3]
    assert x.new_ones([2]).numpy().tolist() == [1.0, 1.0]
    assert x.new_zeros(2, 1, dtype="int64").dtype == skiff.int64


def test_create_tensor_is_empty_of_its_dtype():
    t = skiff.tensor.create_tensor("int32", name="t", persistable=True)
    assert t.shape == [0] and t.dtype == skiff.int32 and t.persistable


def test_a_dense_tensor_saves_as_its_values(tmp_path):
    x = skiff.to_tensor([[1.0, 2.0]])
    skiff.save(x.get_tensor(), str(tmp_path / "t.pdtensor"))
    np.testing.assert_array_equal(skiff.load(str(tmp_path / "t.pdtensor")).numpy(), [[1.0, 2.0]])
