"""Normal, Uniform, Laplace, Exponential, Beta: log_prob, prob, entropy, moments, cdf and
KL against torch.distributions (float64 where the formulas allow), gradients through
log_prob, and Paddle's output shapes."""
import numpy as np
import paddle
import pytest
import torch
import torch.distributions as td

import skiff
import skiff.distribution as D

rng = np.random.default_rng(0)
LOC = rng.standard_normal(5)
SCALE = rng.uniform(0.5, 2.0, 5)
VALUE = rng.standard_normal(5)


def t64(a):
    return skiff.to_tensor(np.asarray(a, dtype=np.float64))


def close(ours, ref, rtol=1e-10):
    ref = ref.detach().numpy() if isinstance(ref, torch.Tensor) else ref
    np.testing.assert_allclose(ours.numpy(), ref, rtol=rtol, atol=1e-12)


def pairs():
    a, b = rng.uniform(0.5, 3.0, 5), rng.uniform(0.5, 3.0, 5)
    c, d = rng.uniform(0.5, 3.0, 5), rng.uniform(0.5, 3.0, 5)
    x = rng.uniform(0.05, 0.95, 5)
    return [
        (D.Normal(t64(LOC), t64(SCALE)), td.Normal(torch.tensor(LOC), torch.tensor(SCALE)),
         D.Normal(t64(c), t64(d)), td.Normal(torch.tensor(c), torch.tensor(d)), VALUE),
        (D.Laplace(t64(LOC), t64(SCALE)), td.Laplace(torch.tensor(LOC), torch.tensor(SCALE)),
         D.Laplace(t64(c), t64(d)), td.Laplace(torch.tensor(c), torch.tensor(d)), VALUE),
        (D.Exponential(t64(a)), td.Exponential(torch.tensor(a)), D.Exponential(t64(b)),
         td.Exponential(torch.tensor(b)), x * 3),
        (D.Beta(t64(a), t64(b)), td.Beta(torch.tensor(a), torch.tensor(b)),
         D.Beta(t64(c), t64(d)), td.Beta(torch.tensor(c), torch.tensor(d)), x),
        (D.Uniform(t64(-a), t64(b)), td.Uniform(torch.tensor(-a), torch.tensor(b)),
         D.Uniform(t64(-a - 1), t64(b + 1)), td.Uniform(torch.tensor(-a - 1),
                                                         torch.tensor(b + 1)), x),
    ]


@pytest.mark.parametrize("case", range(5))
def test_values_against_torch(case):
    ours, ref, ours_q, ref_q, value = pairs()[case]
    close(ours.log_prob(t64(value)), ref.log_prob(torch.tensor(value)))
    close(ours.prob(t64(value)), ref.log_prob(torch.tensor(value)).exp())
    close(ours.entropy(), ref.entropy())
    close(ours.mean, ref.mean)
    close(ours.variance, ref.variance)
    close(D.kl_divergence(ours, ours_q), td.kl_divergence(ref, ref_q))
    close(ours.kl_divergence(ours_q), td.kl_divergence(ref, ref_q))


def test_cdf_icdf_against_torch():
    lap = D.Laplace(t64(LOC), t64(SCALE))
    ref = td.Laplace(torch.tensor(LOC), torch.tensor(SCALE))
    close(lap.cdf(t64(VALUE)), ref.cdf(torch.tensor(VALUE)))
    q = rng.uniform(0.05, 0.95, 5)
    close(lap.icdf(t64(q)), ref.icdf(torch.tensor(q)))
    e = D.Exponential(t64(SCALE))
    close(e.cdf(t64(np.abs(VALUE))), td.Exponential(torch.tensor(SCALE)).cdf(
        torch.tensor(np.abs(VALUE))))


def test_uniform_outside_support_and_paddle_shapes():
    u = D.Uniform(0.0, 2.0)
    lp = u.log_prob(skiff.to_tensor([3.0, 1.0])).numpy()
    ref = paddle.distribution.Uniform(0.0, 2.0).log_prob(paddle.to_tensor([3.0, 1.0])).numpy()
    np.testing.assert_allclose(lp, ref)
    assert np.isneginf(lp[0])
    n = D.Normal([0.0, 1.0], 2.0)
    assert n.loc.dtype == skiff.float32 and n.batch_shape == (2,)
    assert n.sample([3]).shape == [3, 2] and n.entropy().shape == [2]
    assert D.Normal(0.0, 1.0).sample([4]).shape == [4]


def test_log_prob_gradients_against_torch():
    loc, scale = t64(LOC), t64(SCALE)
    loc.stop_gradient = scale.stop_gradient = False
    skiff.sum(D.Normal(loc, scale).log_prob(t64(VALUE))).backward()
    tl = torch.tensor(LOC, requires_grad=True)
    ts = torch.tensor(SCALE, requires_grad=True)
    td.Normal(tl, ts).log_prob(torch.tensor(VALUE)).sum().backward()
    close(loc.grad, tl.grad)
    close(scale.grad, ts.grad)
    a = t64(SCALE)
    a.stop_gradient = False
    skiff.sum(D.Beta(a, t64(LOC ** 2 + 1)).entropy()).backward()
    ta = torch.tensor(SCALE, requires_grad=True)
    td.Beta(ta, torch.tensor(LOC ** 2 + 1)).entropy().sum().backward()
    close(a.grad, ta.grad, rtol=1e-8)


def test_static_program_log_prob():
    skiff.enable_static()
    try:
        main, startup = skiff.static.Program(), skiff.static.Program()
        with skiff.static.program_guard(main, startup):
            v = skiff.static.data("v", [5], "float64")
            out = D.Normal(t64(LOC), t64(SCALE)).log_prob(v)
        (res,) = skiff.static.Executor().run(main, feed={"v": VALUE}, fetch_list=[out])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(res, td.Normal(torch.tensor(LOC), torch.tensor(SCALE)).log_prob(
        torch.tensor(VALUE)).numpy(), rtol=1e-10)


def test_errors():
    with pytest.raises(TypeError, match="Normal: loc"):
        D.Normal("a", 1.0)
    with pytest.raises(TypeError, match="Normal.rsample: shape"):
        D.Normal(0.0, 1.0).rsample(3)
    with pytest.raises(NotImplementedError, match="kl_divergence.*Normal.*Uniform"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))


def test_beta_draws():
    skiff.seed(4)
    beta = D.Beta(t64([0.5, 2.0, 5.0]), t64([1.5, 2.0, 0.7]))
    x = beta.sample([40000]).numpy()
    assert x.shape == (40000, 3) and x.dtype == np.float64
    np.testing.assert_allclose(x.mean(0), beta.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(x.var(0), beta.variance.numpy(), rtol=0.1)
