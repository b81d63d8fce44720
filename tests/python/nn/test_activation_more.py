"""logsigmoid, the in-place activations (elu_, leaky_relu_, tanh_, softmax_, hardtanh_,
thresholded_relu_), thresholded_relu's value, maxout and gumbel_softmax: values and
gradients against PyTorch / Paddle, and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager


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
