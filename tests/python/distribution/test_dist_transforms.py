"""The transforms, Independent, TransformedDistribution and LogNormal against Paddle: forward,
inverse, log-det-Jacobians and shapes, log_prob and entropy, and gradients."""
import numpy as np
import paddle
import paddle.distribution as PD
import pytest

import skiff
import skiff.distribution as D

X = [[-1.2, 0.3, 2.0], [0.5, -0.4, 1.1]]
POS = [[0.2, 0.3, 2.0], [0.5, 0.4, 1.1]]


def ours(a):
    return skiff.to_tensor(np.asarray(a, dtype=np.float64))


def ref(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


def close(x, y, rtol=1e-10):
    x = x.numpy() if hasattr(x, "numpy") else np.asarray(x)
    np.testing.assert_allclose(x, y.numpy(), rtol=rtol, atol=1e-12)


def pairs():
    loc, scale = [1.0, 2.0, 3.0], [0.5, -2.0, 3.0]
    return {
        "exp": (D.ExpTransform(), PD.ExpTransform(), X),
        "sigmoid": (D.SigmoidTransform(), PD.SigmoidTransform(), X),
        "tanh": (D.TanhTransform(), PD.TanhTransform(), X),
        "affine": (D.AffineTransform(ours(loc), ours(scale)),
                   PD.AffineTransform(ref(loc), ref(scale)), X),
        "power": (D.PowerTransform(ours([2.0])), PD.PowerTransform(ref([2.0])), POS),
        # Paddle builds the offsets in float32, so it agrees to about 1e-8 in float64
        "stick": (D.StickBreakingTransform(), PD.StickBreakingTransform(), X),
        "chain": (D.ChainTransform([D.ExpTransform(), D.AffineTransform(ours([1.]), ours([2.]))]),
                  PD.ChainTransform([PD.ExpTransform(),
                                     PD.AffineTransform(ref([1.]), ref([2.]))]), X),
        "independent": (D.IndependentTransform(D.TanhTransform(), 1),
                        PD.IndependentTransform(PD.TanhTransform(), 1), X),
        "stack": (D.StackTransform([D.ExpTransform(), D.TanhTransform(), D.SigmoidTransform()],
                                   1),
                  PD.StackTransform([PD.ExpTransform(), PD.TanhTransform(),
                                     PD.SigmoidTransform()], 1), X),
        "reshape": (D.ReshapeTransform((3,), (3, 1)), PD.ReshapeTransform((3,), (3, 1)), X),
    }


@pytest.mark.parametrize("name", list(pairs()))
def test_transform_against_paddle(name):
    ot, rt, x = pairs()[name]
    rtol = 1e-7 if name == "stick" else 1e-10
    y = ot.forward(ours(x))
    close(y, rt.forward(ref(x)), rtol)
    close(ot.inverse(y), rt.inverse(ref(y.numpy())), rtol)
    close(ot.forward_log_det_jacobian(ours(x)), rt.forward_log_det_jacobian(ref(x)), rtol)
    close(ot.inverse_log_det_jacobian(y), rt.inverse_log_det_jacobian(ref(y.numpy())), rtol)
    assert list(ot.forward_shape([2, 3])) == list(rt.forward_shape([2, 3]))


def test_non_injective_transforms():
    y = ours(POS)
    neg, pos = D.AbsTransform().inverse(y)
    np.testing.assert_allclose(neg.numpy(), -np.asarray(POS))
    np.testing.assert_allclose(pos.numpy(), POS)
    close(D.SoftmaxTransform().forward(ours(X)), PD.SoftmaxTransform().forward(ref(X)))
    for t in (D.AbsTransform(), D.SoftmaxTransform()):
        with pytest.raises(NotImplementedError):
            t.forward_log_det_jacobian(ours(X))


def test_call_builds_chains_and_distributions():
    assert isinstance(D.ExpTransform()(D.TanhTransform()), D.ChainTransform)
    assert isinstance(D.ExpTransform()(D.Normal(0.0, 1.0)), D.TransformedDistribution)
    close(D.ExpTransform()(ours(X)), PD.ExpTransform()(ref(X)))


def test_argument_checks():
    with pytest.raises(TypeError):
        D.AffineTransform(1.0, ours([1.0]))
    with pytest.raises(ValueError):
        D.ReshapeTransform((3,), (2, 2))
    with pytest.raises(ValueError):
        D.IndependentTransform(D.ExpTransform(), 0)
    with pytest.raises(ValueError):
        D.Independent(D.Normal(0.0, 1.0), 1)
    with pytest.raises(TypeError):
        D.TransformedDistribution(D.Normal(0.0, 1.0), [1])


def normal_2x3(lib, t):
    return lib.Normal(t(np.zeros((2, 3)) + 0.2), t(np.ones((2, 3)) * 1.5))


def test_independent_against_paddle():
    o, r = D.Independent(normal_2x3(D, ours), 1), PD.Independent(normal_2x3(PD, ref), 1)
    assert (o.batch_shape, o.event_shape) == (tuple(r.batch_shape), tuple(r.event_shape))
    close(o.log_prob(ours(X)), r.log_prob(ref(X)))
    close(o.entropy(), r.entropy())
    close(o.mean, r.mean)
    assert o.sample([4]).shape == [4, 2, 3]


def test_transformed_distribution_against_paddle():
    ts, rts = [D.StickBreakingTransform()], [PD.StickBreakingTransform()]
    o = D.TransformedDistribution(normal_2x3(D, ours), ts)
    r = PD.TransformedDistribution(normal_2x3(PD, ref), rts)
    assert (o.batch_shape, o.event_shape) == ((2,), (4,))
    assert (tuple(r.batch_shape), tuple(r.event_shape)) == ((2,), (4,))
    y = D.StickBreakingTransform().forward(ours(X))
    close(o.log_prob(y), r.log_prob(ref(y.numpy())), 1e-7)
    draws = o.sample([5])
    assert draws.shape == [5, 2, 4]
    np.testing.assert_allclose(draws.numpy().sum(-1), 1.0, rtol=1e-12)


LOC, SCALE, VALUE = [0.1, -0.5, 1.0], [0.7, 1.3, 0.4], [0.4, 2.2, 3.0]


def test_lognormal_against_paddle():
    o, r = D.LogNormal(ours(LOC), ours(SCALE)), PD.LogNormal(ref(LOC), ref(SCALE))
    close(o.mean, r.mean)
    close(o.variance, r.variance)
    close(o.entropy(), r.entropy())
    close(o.log_prob(ours(VALUE)), r.log_prob(ref(VALUE)))
    close(o.probs(ours(VALUE)), r.probs(ref(VALUE)))
    q, rq = D.LogNormal(ours(SCALE), ours(SCALE)), PD.LogNormal(ref(SCALE), ref(SCALE))
    close(o.kl_divergence(q), r.kl_divergence(rq))
    close(D.kl_divergence(o, q), PD.kl_divergence(r, rq))


def test_lognormal_gradients_and_draws():
    loc, scale, rloc, rscale = ours(LOC), ours(SCALE), ref(LOC), ref(SCALE)
    for t in (loc, scale, rloc, rscale):
        t.stop_gradient = False
    D.LogNormal(loc, scale).log_prob(ours(VALUE)).sum().backward()
    PD.LogNormal(rloc, rscale).log_prob(ref(VALUE)).sum().backward()
    close(loc.grad, rloc.grad)
    close(scale.grad, rscale.grad)
    skiff.seed(5)
    d = D.LogNormal(ours(LOC), ours(SCALE))
    x = d.sample([40000]).numpy()
    assert x.shape == (40000, 3)
    np.testing.assert_allclose(np.log(x).mean(0), LOC, atol=0.03)
    np.testing.assert_allclose(np.log(x).std(0), SCALE, rtol=0.03)
    loc.clear_gradient()
    D.LogNormal(loc, scale).rsample([100]).sum().backward()
    assert np.all(loc.grad.numpy() > 0)
