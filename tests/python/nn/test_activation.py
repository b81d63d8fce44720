"""Activation layers and functions against PyTorch: values and input gradients."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, tensor, torch_tensor

# (skiff layer, PyTorch function): inputs avoid the kinks (0, 6, -3, 3) of the
# piecewise functions so the one-sided derivatives agree.
CASES = [
    (nn.ReLU(), torch.relu),
    (nn.ReLU6(), TF.relu6),
    (nn.Sigmoid(), torch.sigmoid),
    (nn.Tanh(), torch.tanh),
    (nn.GELU(), TF.gelu),
    (nn.GELU(approximate=True), lambda x: TF.gelu(x, approximate="tanh")),
    (nn.LeakyReLU(), TF.leaky_relu),
    (nn.LeakyReLU(0.2), lambda x: TF.leaky_relu(x, 0.2)),
    (nn.ELU(), TF.elu),
    (nn.ELU(0.5), lambda x: TF.elu(x, 0.5)),
    (nn.SiLU(), TF.silu),
    (nn.Swish(), TF.silu),
    (nn.Softplus(), TF.softplus),
    (nn.Softplus(beta=2, threshold=5), lambda x: TF.softplus(x, 2, 5)),
    (nn.Softmax(), lambda x: torch.softmax(x, -1)),
    (nn.Softmax(axis=1), lambda x: torch.softmax(x, 1)),
    (nn.LogSoftmax(), lambda x: torch.log_softmax(x, -1)),
    (nn.LogSoftmax(0), lambda x: torch.log_softmax(x, 0)),
    (nn.Hardswish(), TF.hardswish),
    (nn.Hardsigmoid(), lambda x: torch.clamp(x * 0.1666667 + 0.5, 0, 1)),  # Paddle slope
    (nn.Hardtanh(), TF.hardtanh),
    (nn.Mish(), TF.mish),
    (nn.Softsign(), TF.softsign),
    (nn.Tanhshrink(), TF.tanhshrink),
    (nn.LogSigmoid(), TF.logsigmoid),
    (nn.SELU(), TF.selu),
    # (PyTorch's own celu backward rounds 1 / alpha to float32: the formula is exact)
    (nn.CELU(0.7), lambda x: torch.where(x > 0, x, 0.7 * torch.expm1(x / 0.7))),
    (nn.Softshrink(0.5), lambda x: TF.softshrink(x, 0.5)),
    (nn.Hardshrink(), TF.hardshrink),
    (nn.ThresholdedReLU(), lambda x: torch.where(x > 1, x, torch.zeros_like(x))),
]


def _input(dtype):
    x = rand(3, 4, 5, dtype=dtype, low=-8, high=8)
    kinks = np.array([0.0, 6.0, -3.0, 3.0, 1.0, -1.0, 0.5, -0.5])
    near_kink = np.abs(x[..., None] - kinks).min(-1) < 0.05
    return np.where(near_kink, x + 0.1, x).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer,ref", CASES, ids=[type(c[0]).__name__ + str(i)
                                                   for i, c in enumerate(CASES)])
def test_activation_matches_torch(layer, ref, dtype):
    x = _input(dtype)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt), dtype)
    close(xs.grad, xt.grad, dtype)


def test_prelu_matches_torch():
    layer = nn.PReLU(3, init=0.1).double()
    ref = torch.nn.PReLU(3, init=0.1).double()
    x = _input("float64").reshape(3, 4, 5).transpose(1, 0, 2).copy()  # [4, 3 channels, 5]
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    single = nn.PReLU().double()
    close(single(tensor(x)), TF.prelu(torch.tensor(x), torch.tensor([0.25]).double()))


def test_functional_forms_and_in_place_relu():
    x = _input("float32")
    close(F.relu6(tensor(x)), TF.relu6(torch.tensor(x)), "float32")
    close(F.softmax(tensor(x), axis=0, dtype="float64"),
          torch.softmax(torch.tensor(x, dtype=torch.float64), 0), "float64")
    t = tensor(x)
    out = F.relu_(t)
    np.testing.assert_array_equal(t.numpy(), np.maximum(x, 0))
    assert out is t or np.array_equal(out.numpy(), t.numpy())


def test_activation_repr():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.Softmax(1)) == "Softmax(axis=1)"


def test_activations_reject_integer_input_with_a_skiff_error():
    with pytest.raises(skiff.Error, match="gelu"):
        F.gelu(skiff.to_tensor(np.array([1, 2])))


def test_glu_matches_torch():
    x = _input("float64").reshape(3, 4, 5)
    for axis in (-1, 1):
        xs, xt = tensor(x[:, :, :4].copy(), True), torch_tensor(x[:, :, :4].copy(), True)
        compare(nn.GLU(axis)(xs), TF.glu(xt, axis))
        close(xs.grad, xt.grad)
