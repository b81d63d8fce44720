"""ContinuousBernoulli against Paddle's: moments, entropy, densities, cdf / icdf and KL
on both sides of the Taylor region around 1/2, gradients of log_prob and rsample, the
draws' distribution, shapes and errors."""
import numpy as np
import paddle
import pytest

import skiff
from skiff.distribution import ContinuousBernoulli

P = [1e-4, 0.2, 0.4995, 0.5, 0.5008, 0.7, 0.99]


def pair(probs, dtype="float64", **kw):
    return (ContinuousBernoulli(skiff.to_tensor(np.asarray(probs, dtype)), **kw),
            paddle.distribution.ContinuousBernoulli(paddle.to_tensor(np.asarray(probs, dtype)),
                                                    **kw))


def close(got, want, rtol=1e-9):
    assert list(got.shape) == list(want.shape)
    atol = 1e-12 if rtol < 1e-6 else 2e-5  # float32: ours and Paddle's round differently
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_moments_entropy_and_functions_match_paddle(dtype):
    ours, theirs = pair(P, dtype)
    rtol = 1e-9 if dtype == "float64" else 1e-4  # float32: ours is nearer float64 at 1e-4
    close(ours.mean, theirs.mean, rtol)
    close(ours.variance, theirs.variance, rtol)
    close(ours.entropy(), theirs.entropy(), rtol)
    for v in (0.0, 0.3, 0.97, 1.0, -0.5, 1.5):
        sv, pv = skiff.to_tensor(np.asarray(v, dtype)), paddle.to_tensor(np.asarray(v, dtype))
        close(ours.cdf(sv), theirs.cdf(pv), rtol)
        close(ours.log_prob(sv), theirs.log_prob(pv), rtol)
        close(ours.prob(sv), theirs.prob(pv), rtol)
        if 0.0 <= v <= 1.0:
            close(ours.icdf(sv), theirs.icdf(pv), rtol)


def test_taylor_region_follows_lims():
    ours, theirs = pair([0.45, 0.5, 0.55], lims=(0.4, 0.6))
    close(ours.mean, theirs.mean)
    close(ours.entropy(), theirs.entropy())
    close(ours.log_prob(skiff.to_tensor(0.25)), theirs.log_prob(paddle.to_tensor(0.25, "float64")))


def test_kl_matches_paddle():
    (a, pa), (b, pb) = pair([0.2, 0.8, 0.5, 0.4999]), pair([0.7, 0.5, 0.1, 0.6])
    close(a.kl_divergence(b), pa.kl_divergence(pb))
    close(skiff.distribution.kl_divergence(b, a), paddle.distribution.kl_divergence(pb, pa))
    with pytest.raises(ValueError, match=r"same batch_shape, got \[4\] and \[1\]"):
        a.kl_divergence(ContinuousBernoulli(skiff.to_tensor([0.3], "float64")))


def test_gradients_match_paddle():
    probs = np.array([0.2, 0.4996, 0.8])
    value = np.array([0.1, 0.6, 0.35])
    sp, pp = skiff.to_tensor(probs, stop_gradient=False), paddle.to_tensor(probs,
                                                                          stop_gradient=False)
    for fn in ("log_prob", "cdf", "icdf"):
        sp.clear_grad()
        pp.clear_grad()
        getattr(ContinuousBernoulli(sp), fn)(skiff.to_tensor(value)).sum().backward()
        getattr(paddle.distribution.ContinuousBernoulli(pp), fn)(
            paddle.to_tensor(value)).sum().backward()
        np.testing.assert_allclose(sp.grad.numpy(), pp.grad.numpy(), rtol=1e-7)
        assert np.all(np.isfinite(sp.grad.numpy()))
    sp.clear_grad()
    draws = ContinuousBernoulli(sp).rsample([5])
    assert draws.shape == [5, 3] and not draws.stop_gradient
    draws.sum().backward()
    assert np.all(np.isfinite(sp.grad.numpy()))
    assert ContinuousBernoulli(sp).sample([2]).stop_gradient


def test_draws_follow_the_distribution():
    skiff.seed(7)
    dist = ContinuousBernoulli(skiff.to_tensor([0.15, 0.5, 0.9], "float64"))
    draws = dist.sample([20000]).numpy()
    assert draws.shape == (20000, 3) and draws.min() >= 0.0 and draws.max() <= 1.0
    np.testing.assert_allclose(draws.mean(0), dist.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(draws.var(0), dist.variance.numpy(), atol=0.006)
    for q in (0.25, 0.5, 0.75):  # the empirical cdf at the icdf's quantiles
        at = dist.icdf(skiff.to_tensor(q, "float64")).numpy()
        np.testing.assert_allclose((draws <= at).mean(0), q, atol=0.015)


def test_shapes_dtypes_and_arguments():
    d = ContinuousBernoulli(0.3)
    theirs = paddle.distribution.ContinuousBernoulli(0.3)
    assert d.probs.shape == list(theirs.probs.shape) == [1] and d.batch_shape == (1,)
    assert d.dtype == skiff.float32 and d.event_shape == ()
    assert ContinuousBernoulli(skiff.to_tensor(0.3)).batch_shape == ()
    assert ContinuousBernoulli(skiff.to_tensor([[0.3, 0.2]])).sample().shape == [1, 2]
    clipped = ContinuousBernoulli(skiff.to_tensor([1.5, -0.1]))
    close(clipped.probs, paddle.distribution.ContinuousBernoulli(
        paddle.to_tensor([1.5, -0.1])).probs)
    wide = ContinuousBernoulli(skiff.to_tensor([0.3, 0.6], "float64"))
    assert wide.log_prob(skiff.to_tensor([0.5, 0.5], "float32")).dtype == skiff.float64
    assert wide.log_prob(skiff.to_tensor([[0.2], [0.9]], "float64")).shape == [2, 2]
    with pytest.raises(TypeError, match="probs must be a float, list, numpy array or Tensor"):
        ContinuousBernoulli("a")
    with pytest.raises(ValueError, match="lims must be two numbers lo < 0.5 < hi"):
        ContinuousBernoulli(0.3, lims=(0.6, 0.7))
    with pytest.raises(TypeError, match="shape must be a list or tuple"):
        d.sample(3)
