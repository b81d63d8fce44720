"""skiff.Tensor's own attributes and constructor from Python: a value of the wrong kind is a
TypeError naming the attribute and what it takes; Tensor(data) copies a numpy array or
shares a Tensor's value; autograd messages describe unnamed tensors by type."""
import numpy as np
import pytest

import skiff


@pytest.mark.parametrize("attribute,value,message", [
    ("grad", "abc", "Tensor.grad must be a Tensor or None, got str"),
    ("stop_gradient", "yes", "Tensor.stop_gradient must be a bool, got str"),
    ("persistable", [1], "Tensor.persistable must be a bool, got list"),
    ("name", 3, "Tensor.name must be a str, got int"),
])
def test_attributes_of_the_wrong_kind_name_what_they_take(attribute, value, message):
    t = skiff.ones([2])
    with pytest.raises(TypeError, match=message):
        setattr(t, attribute, value)


def test_flags_take_bools_numpy_bools_and_ints():
    t = skiff.ones([2])
    t.stop_gradient = np.bool_(False)
    assert t.stop_gradient is False
    t.persistable = 1
    assert t.persistable is True
    t.grad = None
    assert t.grad is None


def test_tensor_of_data():
    a = np.arange(3, dtype=np.float32)
    t = skiff.Tensor(a)
    a[0] = 9
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])  # a copy
    np.testing.assert_array_equal(skiff.Tensor(t).numpy(), [0, 1, 2])
    with pytest.raises(TypeError, match=r"Tensor\(data\): data must be a numpy array or a Tensor"):
        skiff.Tensor("abc")


def test_autograd_messages_describe_unnamed_tensors():
    with pytest.raises(skiff.Error, match=r"an unnamed float32\[2\] tensor has stop_gradient"):
        skiff.ones([2]).backward()


def test_gradients_outlive_the_graph_that_made_them():
    """Freeing a graph (its loss a temporary) keeps the leaves' gradients and histories,
    whether the leaf was made in Python (a Parameter) or by an op."""
    layer = skiff.nn.Linear(3, 1)
    made = skiff.ones([3, 1]) * 2.0
    made.stop_gradient = False
    skiff.mean(layer(skiff.ones([2, 3])) + skiff.ones([2, 3]) @ made).backward()
    assert layer.weight.grad is not None and layer.bias.grad is not None
    np.testing.assert_allclose(made.grad.numpy(), np.ones([3, 1]))
