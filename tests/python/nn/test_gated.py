"""swiglu (skiff/nn/functional/gated.py) against its formula, PyTorch and Paddle's example,
in a static program, and its errors."""
import numpy as np
import pytest
import torch.nn.functional as TF

import skiff
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager, run_in_program


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_swiglu_two_inputs_against_torch(dtype):
    xa, ya = rand(3, 4, 6, dtype=dtype, seed=1, low=-3, high=3), rand(3, 4, 6, dtype=dtype,
                                                                       seed=2)
    x, y = tensor(xa, grad=True), tensor(ya, grad=True)
    tx, ty = torch_tensor(xa, grad=True), torch_tensor(ya, grad=True)
    compare(F.swiglu(x, y), TF.silu(tx) * ty, dtype)
    close(x.grad, tx.grad, dtype, what="dx")
    close(y.grad, ty.grad, dtype, what="dy")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_swiglu_one_input_splits_last_axis(dtype):
    xa = rand(5, 8, dtype=dtype, seed=3, low=-4, high=4)
    x, tx = tensor(xa, grad=True), torch_tensor(xa, grad=True)
    a, b = tx.chunk(2, dim=-1)
    out = F.swiglu(x)
    assert list(out.shape) == [5, 4]
    compare(out, TF.silu(a) * b, dtype)
    close(x.grad, tx.grad, dtype, what="dx")


def test_swiglu_formula_and_paddle_example():
    a = np.array([1.0, 2.0], dtype="float32")
    x = skiff.to_tensor(a)
    close(F.swiglu(x), [1.0 / (1.0 + np.exp(-1.0)) * 2.0], "float32")
    expected = a / (1.0 + np.exp(-a)) * a
    close(F.swiglu(x, x), expected, "float32")
    close(F.swiglu(x, x), [0.73105860, 3.52318811], "float32")


def test_swiglu_static_matches_eager():
    xa, ya = rand(2, 6, seed=4), rand(2, 6, seed=5)
    out, dx, dy = run_in_program(lambda x, y: F.swiglu(x, y), {"x": xa, "y": ya}, ("x", "y"))
    close(out, xa / (1 + np.exp(-xa)) * ya)
    assert_static_matches_eager(lambda x, y: F.swiglu(x, y), {"x": xa, "y": ya}, ("x", "y"))
    assert_static_matches_eager(lambda x: F.swiglu(x), {"x": xa}, ("x",))


def test_swiglu_errors():
    with pytest.raises(ValueError, match="swiglu.*even"):
        F.swiglu(tensor(rand(2, 5)))
    with pytest.raises(ValueError, match="swiglu.*same shape"):
        F.swiglu(tensor(rand(2, 4)), tensor(rand(2, 3)))
