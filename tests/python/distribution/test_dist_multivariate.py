"""MultivariateNormal, Dirichlet and StudentT against Paddle: moments, log_prob, entropy and
KL on fixed float64 parameters, gradients of log_prob, and seeded draws."""
import numpy as np
import paddle
import paddle.distribution as PD
import pytest

import skiff
import skiff.distribution as D

COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
COV2 = np.array([[1.0, 0.1, 0.0], [0.1, 2.0, 0.3], [0.0, 0.3, 1.5]])
LOC = [[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]]
VALUE = [0.5, 0.1, -0.3]
CONC = [[0.5, 1.0, 2.0], [3.0, 1.5, 0.8]]
SIMPLEX = [0.2, 0.3, 0.5]
DF, T_LOC, T_SCALE, T_VALUE = [3.0, 1.5, 0.8, 5.0], [0., 1., -1., 2.], [1., 2., .5, 1.], \
    [0.3, -2.0, 0.0, 4.0]


def ours(a):
    return skiff.to_tensor(np.asarray(a, dtype=np.float64))


def ref(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


def close(x, y, rtol=1e-10):
    np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_against_paddle(kind):
    m = np.linalg.cholesky(COV) if kind == "scale_tril" else COV
    o, r = D.MultivariateNormal(ours(LOC), **{kind: ours(m)}), \
        PD.MultivariateNormal(ref(LOC), **{kind: ref(m)})
    assert (o.batch_shape, o.event_shape) == ((2,), (3,))
    close(o.log_prob(ours(VALUE)), r.log_prob(ref(VALUE)))
    close(o.prob(ours(VALUE)), r.prob(ref(VALUE)))
    close(o.entropy(), r.entropy())
    close(o.mean, r.mean)
    close(o.variance, r.variance, 1e-9)
    q = D.MultivariateNormal(ours(LOC[::-1]), covariance_matrix=ours(COV2))
    rq = PD.MultivariateNormal(ref(LOC[::-1]), covariance_matrix=ref(COV2))
    close(o.kl_divergence(q), r.kl_divergence(rq), 1e-9)
    close(D.kl_divergence(o, q), PD.kl_divergence(r, rq), 1e-9)


def test_mvn_gradients_and_draws():
    loc, cov, rloc, rcov = ours(LOC[0]), ours(COV), ref(LOC[0]), ref(COV)
    for t in (loc, cov, rloc, rcov):
        t.stop_gradient = False
    D.MultivariateNormal(loc, covariance_matrix=cov).log_prob(ours(VALUE)).sum().backward()
    PD.MultivariateNormal(rloc, covariance_matrix=rcov).log_prob(ref(VALUE)).sum().backward()
    close(loc.grad, rloc.grad)
    # the Cholesky backward gives a non-symmetric gradient; compare its symmetric part
    sym = cov.grad.numpy() + cov.grad.numpy().T
    np.testing.assert_allclose(sym, rcov.grad.numpy() + rcov.grad.numpy().T, rtol=1e-9)
    skiff.seed(0)
    x = D.MultivariateNormal(ours(LOC[0]), covariance_matrix=ours(COV)).sample([40000])
    assert x.shape == [40000, 3] and x.dtype == skiff.float64
    np.testing.assert_allclose(np.cov(x.numpy().T), COV, atol=0.05)
    np.testing.assert_allclose(x.numpy().mean(0), LOC[0], atol=0.03)


def test_mvn_argument_checks():
    with pytest.raises(ValueError):
        D.MultivariateNormal(ours(VALUE))
    with pytest.raises(ValueError):
        D.MultivariateNormal(ours(VALUE), covariance_matrix=ours(COV), scale_tril=ours(COV))
    with pytest.raises(ValueError):
        D.MultivariateNormal(ours(VALUE), covariance_matrix=ours(VALUE))


def test_dirichlet_against_paddle():
    o, r = D.Dirichlet(ours(CONC)), PD.Dirichlet(ref(CONC))
    assert (o.batch_shape, o.event_shape) == (tuple(r.batch_shape), tuple(r.event_shape))
    close(o.mean, r.mean)
    close(o.variance, r.variance)
    close(o.log_prob(ours(SIMPLEX)), r.log_prob(ref(SIMPLEX)))
    close(o.entropy(), r.entropy(), 1e-9)
    close(D.kl_divergence(o, D.Dirichlet(ours(CONC[::-1]))),
          PD.kl_divergence(r, PD.Dirichlet(ref(CONC[::-1]))), 1e-9)
    a, ra = ours(CONC), ref(CONC)
    a.stop_gradient = ra.stop_gradient = False
    D.Dirichlet(a).log_prob(ours(SIMPLEX)).sum().backward()
    PD.Dirichlet(ra).log_prob(ref(SIMPLEX)).sum().backward()
    close(a.grad, ra.grad, 1e-9)
    with pytest.raises(ValueError):
        D.Dirichlet(ours(1.0))


def test_dirichlet_draws():
    skiff.seed(1)
    o = D.Dirichlet(ours(CONC))
    x = o.sample([30000]).numpy()
    assert x.shape == (30000, 2, 3)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), o.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(x.var(0), o.variance.numpy(), rtol=0.1)


def test_student_t_against_paddle():
    o = D.StudentT(ours(DF), ours(T_LOC), ours(T_SCALE))
    r = PD.StudentT(ref(DF), ref(T_LOC), ref(T_SCALE))
    close(o.mean, r.mean)
    close(o.variance, r.variance)
    close(o.log_prob(ours(T_VALUE)), r.log_prob(ref(T_VALUE)))
    close(o.entropy(), r.entropy(), 1e-9)
    # Paddle's backward through StudentT.log_prob crashes; central differences of its values
    df = ours(DF)
    df.stop_gradient = False
    D.StudentT(df, ours(T_LOC), ours(T_SCALE)).log_prob(ours(T_VALUE)).sum().backward()
    h = 1e-6

    def paddle_log_prob(d):
        return PD.StudentT(ref(d), ref(T_LOC), ref(T_SCALE)).log_prob(ref(T_VALUE)).numpy()
    numeric = (paddle_log_prob(np.add(DF, h)) - paddle_log_prob(np.subtract(DF, h))) / (2 * h)
    np.testing.assert_allclose(df.grad.numpy(), numeric, rtol=1e-6)
    with pytest.raises(ValueError):
        D.StudentT(-1.0, 0.0, 1.0)


def test_student_t_draws():
    skiff.seed(2)
    x = D.StudentT(ours([5.0, 8.0]), ours([0.0, 1.0]), ours([1.0, 2.0])).sample([40000])
    assert x.shape == [40000, 2] and x.dtype == skiff.float64
    np.testing.assert_allclose(x.numpy().mean(0), [0.0, 1.0], atol=0.05)
    np.testing.assert_allclose(x.numpy().var(0), [5 / 3, 4 * 8 / 6], rtol=0.1)
