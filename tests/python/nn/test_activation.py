"""Activation layers and functions (skiff/nn/functional/activation.py, activation_inplace.py,
nn/layer/activation.py) against PyTorch (Paddle where only Paddle defines it): values and
input gradients, the in-place activations, maxout, gumbel_softmax, Silu / Softmax2D /
Unflatten, a static program, and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager


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


def test_logsigmoid_matches_torch():
    xs, xt = tensor(rand(3, 4) * 30, True), torch_tensor(rand(3, 4) * 30, True)
    compare(F.logsigmoid(xs), TF.logsigmoid(xt))
    close(xs.grad, xt.grad)


INPLACE = [("elu_", dict(alpha=0.7), lambda t: TF.elu(t, 0.7)),
           ("leaky_relu_", dict(negative_slope=0.2), lambda t: TF.leaky_relu(t, 0.2)),
           ("tanh_", {}, torch.tanh),
           ("softmax_", dict(axis=0), lambda t: torch.softmax(t, 0)),
           ("hardtanh_", dict(min=-0.3, max=0.5), lambda t: TF.hardtanh(t, -0.3, 0.5)),
           ("thresholded_relu_", dict(threshold=0.2, value=-1.0),
            lambda t: torch.where(t > 0.2, t, torch.full_like(t, -1.0)))]


@pytest.mark.parametrize("name,kw,ref", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_activation_writes_input_and_backpropagates(name, kw, ref):
    x = rand(3, 4)
    leaf, tleaf = tensor(x, True), torch_tensor(x, True)
    inner = leaf * 2.0
    out = getattr(F, name)(inner, **kw)
    assert out is inner
    compare(inner, ref(tleaf * 2.0))
    close(leaf.grad, tleaf.grad)


def test_thresholded_relu_value_matches_paddle(paddle):
    x = rand(4, 5, dtype="float32")
    close(F.thresholded_relu(tensor(x), 0.3, 2.0),
          paddle.nn.functional.thresholded_relu(paddle.to_tensor(x), 0.3, 2.0).numpy(),
          "float32")
    close(nn.ThresholdedReLU(0.3, 2.0)(tensor(x)),
          paddle.nn.ThresholdedReLU(0.3, 2.0)(paddle.to_tensor(x)).numpy(), "float32")


@pytest.mark.parametrize("axis", [1, -1])
def test_maxout_matches_paddle_and_gradient(axis, paddle):
    x = rand(2, 6, 3, 4) if axis == 1 else rand(2, 3, 4, 6)
    xs = tensor(x, True)
    out = F.maxout(xs, 3, axis)
    close(out, paddle.nn.functional.maxout(paddle.to_tensor(x), 3, axis).numpy())
    close(nn.Maxout(3, axis)(tensor(x)), out)
    xt = torch_tensor(x, True)
    t = xt if axis == 1 else xt.permute(0, 3, 1, 2)
    ref = t.reshape(2, 2, 3, *t.shape[2:]).amax(2)
    compare(out, ref if axis == 1 else ref.permute(0, 2, 3, 1))
    close(xs.grad, xt.grad)
    with pytest.raises(ValueError, match="maxout.*divisible"):
        F.maxout(xs, 4, axis)


def test_gumbel_softmax_soft_and_hard():
    skiff.seed(3)
    x = rand(64, 5)
    xs = tensor(x, True)
    soft = F.gumbel_softmax(xs, temperature=0.5)
    np.testing.assert_allclose(soft.numpy().sum(-1), 1.0, rtol=1e-12)
    assert (soft.numpy() > 0).all()
    hard = F.gumbel_softmax(xs, temperature=0.5, hard=True, axis=0)
    values = hard.numpy()
    assert set(np.unique(values)) == {0.0, 1.0} and (values.sum(0) == 1).all()
    # straight-through: the gradient is the soft sample's, which sums to 0 over the axis
    w = rand(64, 5, seed=4)
    skiff.sum(hard * tensor(w)).backward()
    g = xs.grad.numpy()
    assert np.abs(g).sum() > 0
    np.testing.assert_allclose(g.sum(0), 0.0, atol=1e-10)
    # the noise is Gumbel: argmax frequencies follow softmax(x)
    skiff.seed(0)
    logits = tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 4000)))
    freq = F.gumbel_softmax(logits, hard=True).numpy().mean(0)
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    with pytest.raises(ValueError, match="gumbel_softmax.*temperature"):
        F.gumbel_softmax(xs, temperature=0.0)


def test_activations_in_a_static_program():
    def fn(x):
        return skiff.concat([F.logsigmoid(x) + F.thresholded_relu(x, 0.1, 0.5),
                             F.maxout(x, 2)], axis=1)
    assert_static_matches_eager(fn, {"x": rand(2, 4, 3, 3, dtype="float32")}, ["x"])


def test_small_layers():
    assert nn.Silu is nn.SiLU
    x = rand(2, 3, 4, 5)
    close(nn.Softmax2D()(tensor(x)), torch.nn.Softmax2d()(torch.tensor(x)))
    with pytest.raises(ValueError, match="Softmax2D"):
        nn.Softmax2D()(tensor(rand(3, 4)))
    assert nn.Unflatten(1, [3, 1])(tensor(x)).shape == [2, 3, 1, 4, 5]
    assert nn.Unflatten(-1, (-1, 5, 1))(tensor(x)).shape == [2, 3, 4, 1, 5, 1]
    with pytest.raises(ValueError, match="Unflatten"):
        nn.Unflatten(1, [2, 2])(tensor(x))
