"""Eager mode core: tensors share memory with numpy and torch, ops run the C++
kernels, backward matches PyTorch's gradients, errors are skiff.Error."""
import sys

import numpy as np
import pytest

import skiff

torch = pytest.importorskip("torch")


def test_from_numpy_shares_numpy_memory_and_to_tensor_copies():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, copied = skiff.from_numpy(a), skiff.to_tensor(a)
    a[0, 0] = 42
    assert t.numpy()[0, 0] == 42 and copied.numpy()[0, 0] == 0  # one buffer, and a copy
    assert t.numpy(copy=False).ctypes.data == a.ctypes.data
    assert t.numpy().ctypes.data != a.ctypes.data
    assert t.shape == [2, 3] and t.dtype == skiff.float32 and t.dtype == "float32"


def test_to_tensor_converts_python_data():
    assert skiff.to_tensor([1.5, 2]).dtype == skiff.float32
    assert skiff.to_tensor([1, 2]).dtype == skiff.int64
    assert skiff.to_tensor(np.zeros(3, np.uint8)).dtype == skiff.uint8  # as Paddle
    assert skiff.to_tensor(np.zeros(3, np.uint32)).dtype == skiff.int64
    assert skiff.to_tensor(np.zeros(3, np.float64)).dtype == skiff.float64
    assert skiff.to_tensor([[1, 2]], dtype="float64").numpy().dtype == np.float64
    strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(skiff.to_tensor(strided).numpy(), strided)


def test_dlpack_round_trip_with_torch():
    t = skiff.to_tensor(np.arange(4, dtype=np.float32))
    tt = torch.from_dlpack(t)
    tt[1] = 7
    assert t.numpy()[1] == 7
    back = skiff.from_dlpack(torch.ones(2, 3, dtype=torch.float64))
    assert back.shape == [2, 3] and back.dtype == skiff.float64


def test_backward_matches_torch():
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((4, 5)).astype(np.float32)
    w0 = rng.standard_normal((5, 3)).astype(np.float32)
    x = skiff.to_tensor(x0, stop_gradient=False)
    w = skiff.to_tensor(w0, stop_gradient=False)
    loss = ((x @ w).tanh() * 2.0 + x.sum()).mean()
    loss.backward()
    tx = torch.tensor(x0, requires_grad=True)
    tw = torch.tensor(w0, requires_grad=True)
    tloss = ((tx @ tw).tanh() * 2.0 + tx.sum()).mean()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_grads_accumulate_and_clear():
    x = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    x.clear_grad()  # Paddle's default: zeroed in place
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_no_grad_and_grad_function():
    x = skiff.to_tensor([0.5, -1.0], stop_gradient=False)
    with skiff.no_grad():
        y = x.tanh()
    assert y.stop_gradient and y.is_leaf
    h = x.tanh()
    (gx,) = skiff.grad(h.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 1 - np.tanh([0.5, -1.0]) ** 2, rtol=1e-6)
    assert x.grad is None


def test_second_backward_needs_retain_graph():
    x = skiff.to_tensor([1.0], stop_gradient=False)
    y = x.tanh().sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(skiff.Error, match="second time"):
        y.backward()


def test_errors_name_op_and_shapes():
    a = skiff.to_tensor(np.zeros((2, 3), np.float32))
    b = skiff.to_tensor(np.zeros((4, 5), np.float32))
    with pytest.raises(skiff.Error, match=r"matmul.*\[2, 3\]"):
        a @ b
    with pytest.raises(skiff.Error, match="no attribute"):
        skiff.framework.core.eager_op("matmul", {"bogus": 1})


def test_errors_point_at_the_calling_line():
    a = skiff.to_tensor(np.zeros((2, 3), np.float32))
    b = skiff.to_tensor(np.zeros((4, 3), np.float32))
    line = sys._getframe().f_lineno + 2
    with pytest.raises(skiff.Error) as operator_error:
        a @ b
    with pytest.raises(skiff.Error) as function_error:
        skiff.reshape(a, [4, 4])
    assert f"(at {__file__}:{line})" in str(operator_error.value)
    assert f"(at {__file__}:{line + 2})" in str(function_error.value)
    assert "X float32[2, 3], Y float32[4, 3]" in str(operator_error.value)
