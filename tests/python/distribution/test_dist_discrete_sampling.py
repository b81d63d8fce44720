"""Bernoulli and Categorical against Paddle and torch; sampling checked by moments of large
samples with fixed seeds; rsample gradients reach the parameters."""
import numpy as np
import paddle
import pytest
import torch
import torch.distributions as td

import skiff
import skiff.distribution as D

P = np.array([0.1, 0.35, 0.5, 0.8], dtype=np.float32)
LOGITS = np.array([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]], dtype=np.float32)


def test_bernoulli_against_torch_and_paddle():
    ours, ref = D.Bernoulli(skiff.to_tensor(P)), td.Bernoulli(torch.tensor(P))
    v = np.array([1.0, 0.0, 1.0, 0.0], np.float32)
    np.testing.assert_allclose(ours.log_prob(skiff.to_tensor(v)).numpy(),
                               ref.log_prob(torch.tensor(v)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.entropy().numpy(), ref.entropy().numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.variance.numpy(), ref.variance.numpy(), rtol=1e-6)
    q = np.array([0.6, 0.2, 0.5, 0.3], np.float32)
    np.testing.assert_allclose(
        D.kl_divergence(ours, D.Bernoulli(skiff.to_tensor(q))).numpy(),
        td.kl_divergence(ref, td.Bernoulli(torch.tensor(q))).numpy(), rtol=1e-4, atol=1e-7)
    pb = paddle.distribution.Bernoulli(paddle.to_tensor(P))
    c = np.array([-0.5, 0.5, 1.0, 0.2], np.float32)
    np.testing.assert_allclose(ours.cdf(skiff.to_tensor(c)).numpy(),
                               pb.cdf(paddle.to_tensor(c)).numpy())


def test_categorical_matches_paddle():
    ours = D.Categorical(skiff.to_tensor(LOGITS))
    theirs = paddle.distribution.Categorical(paddle.to_tensor(LOGITS))
    for v in (np.array([0, 2]), np.array([[0, 1], [2, 2]])):
        np.testing.assert_allclose(ours.log_prob(skiff.to_tensor(v)).numpy(),
                                   theirs.log_prob(paddle.to_tensor(v)).numpy(), rtol=1e-6)
        np.testing.assert_allclose(ours.probs(skiff.to_tensor(v)).numpy(),
                                   theirs.probs(paddle.to_tensor(v)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.entropy().numpy(),
                               td.Categorical(logits=torch.tensor(LOGITS)).entropy().numpy(),
                               rtol=1e-6)
    other = LOGITS[::-1].copy()
    kl = D.kl_divergence(ours, D.Categorical(skiff.to_tensor(other)))
    ref = td.kl_divergence(td.Categorical(logits=torch.tensor(LOGITS)),
                           td.Categorical(logits=torch.tensor(other)))
    assert kl.shape == [2, 1]
    np.testing.assert_allclose(kl.numpy()[:, 0], ref.numpy(), rtol=1e-5, atol=1e-7)
    one = D.Categorical(skiff.to_tensor(LOGITS[0]))
    np.testing.assert_allclose(one.log_prob(skiff.to_tensor(np.array([2, 0]))).numpy(),
                               np.log(LOGITS[0][[2, 0]] / LOGITS[0].sum()), rtol=1e-6)


def test_categorical_sample_frequencies():
    skiff.seed(3)
    s = D.Categorical(skiff.to_tensor(LOGITS)).sample([20000])
    assert s.shape == [20000, 2] and s.dtype == skiff.int64
    soft = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    for b in range(2):
        freq = np.bincount(s.numpy()[:, b], minlength=3) / 20000
        np.testing.assert_allclose(freq, soft[b], atol=0.015)


@pytest.mark.parametrize("make, mean, var", [
    (lambda: D.Normal(1.5, 2.0), 1.5, 4.0),
    (lambda: D.Uniform(-1.0, 3.0), 1.0, 16.0 / 12),
    (lambda: D.Laplace(0.5, 1.5), 0.5, 2 * 1.5 ** 2),
    (lambda: D.Exponential(2.0), 0.5, 0.25),
    (lambda: D.Bernoulli(0.3), 0.3, 0.21),
])
def test_sample_moments(make, mean, var):
    skiff.seed(7)
    x = make().sample([200000]).numpy().astype(np.float64)
    assert x.shape == (200000,)
    np.testing.assert_allclose(x.mean(), mean, atol=4 * np.sqrt(var / 200000) + 1e-3)
    np.testing.assert_allclose(x.var(), var, rtol=0.03)


def test_rsample_gradients():
    loc = skiff.to_tensor([1.0], stop_gradient=False)
    scale = skiff.to_tensor([2.0], stop_gradient=False)
    skiff.seed(1)
    x = D.Normal(loc, scale).rsample([1000])
    skiff.sum(x).backward()
    eps = (x.numpy() - 1.0) / 2.0
    np.testing.assert_allclose(loc.grad.numpy(), [1000.0])
    np.testing.assert_allclose(scale.grad.numpy(), [eps.sum()], rtol=1e-4)
    sample = D.Normal(loc, scale).sample([3])
    assert sample.stop_gradient
    rate = skiff.to_tensor([2.0], stop_gradient=False)
    y = D.Exponential(rate).rsample([10])
    skiff.sum(y).backward()
    np.testing.assert_allclose(rate.grad.numpy(), [-y.numpy().sum() / 2.0], rtol=1e-5)
    logits = D.Bernoulli(skiff.to_tensor([0.3, 0.6])).rsample([4], temperature=0.5)
    assert logits.shape == [4, 2]
