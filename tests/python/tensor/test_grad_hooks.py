"""Tensor.register_hook, gradient, retain_grads on the root, inplace_version: checked
against Paddle running the same steps."""
import numpy as np
import paddle
import pytest

import skiff
from skiff.framework.arguments import ArgumentError


def _hooked_backward(lib):
    seen = []
    x = lib.to_tensor([0.0, 1.0, 2.0, 3.0], stop_gradient=False)
    y = lib.to_tensor([4.0, 5.0, 6.0, 7.0], stop_gradient=False)
    z = lib.to_tensor([1.0, 2.0, 3.0, 4.0])
    handle = x.register_hook(lambda g: seen.append(g.numpy().copy()))
    x.register_hook(lambda g: g * 2)
    w = x + y
    w.register_hook(lambda g: g * 2)
    out = (z * w * x).sum()      # x reaches out twice: its hooks see the sum, once
    out.backward()
    first = x.grad.numpy().copy()
    assert handle.remove() is True
    x.clear_gradient(False)
    y.clear_gradient(False)
    out = (z * (x + y) * x).sum()
    out.backward()
    return seen, first, x.grad.numpy(), y.grad.numpy()


def test_hooks_run_once_per_backward_in_order_and_may_replace_the_gradient():
    ours, theirs = _hooked_backward(skiff), _hooked_backward(paddle)
    assert len(ours[0]) == len(theirs[0]) == 1
    np.testing.assert_allclose(ours[0][0], theirs[0][0])
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b)


def test_a_hook_must_be_callable_and_the_tensor_want_a_gradient():
    x = skiff.to_tensor([1.0])
    with pytest.raises(ArgumentError, match="stop_gradient=True"):
        x.register_hook(lambda g: g)
    x.stop_gradient = False
    with pytest.raises(TypeError, match="callable"):
        x.register_hook(3)


def test_a_hook_returning_a_wrong_shape_is_an_error_naming_both():
    x = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    x.register_hook(lambda g: skiff.ones([3]))
    with pytest.raises(skiff.Error, match=r"hook returned float32\[3\].*float32\[2\]"):
        (x * x).sum().backward()


def _gradients(lib):
    x = lib.to_tensor(5.0, stop_gradient=False)
    y = lib.pow(x, 4.0)
    y.retain_grads()
    y.backward()
    emb = lib.nn.Embedding(6, 3, sparse=True)
    emb(lib.to_tensor([[1, 3, 1]])).sum().backward()
    values, rows = emb.weight.gradient()
    dense = np.zeros([6, 3], "float32")
    np.add.at(dense, rows, values)    # rows may repeat (Paddle's do): they add up
    return x.gradient(), y.gradient(), dense


def test_gradient_as_numpy_and_selected_rows_as_values_and_rows():
    for a, b in zip(_gradients(skiff), _gradients(paddle)):
        np.testing.assert_allclose(a, b)


def test_no_gradient_is_none():
    assert skiff.to_tensor([1.0]).gradient() is None


def _versions(lib):
    v = lib.ones([4, 2, 3])
    seen = [v.inplace_version]
    v[1] = 2.2
    seen.append(v.inplace_version)
    v.add_(lib.ones_like(v))
    seen.append(v.inplace_version)
    return seen


def test_inplace_version_counts_in_place_writes():
    assert _versions(skiff) == _versions(paddle)
