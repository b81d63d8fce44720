"""The Bessel, polygamma, multigammaln, incomplete gamma, nextafter and frexp functions
(skiff/tensor/special.py): values and gradients against Paddle, Tensor methods, in-place
variants, dtype promotion and the errors Paddle raises."""
import numpy as np
import paddle
import pytest

import skiff

RNG = np.random.default_rng(7)


def _both(values, dtype, grad=False):
    """The same values as a skiff and a paddle tensor."""
    a = np.asarray(values, dtype=dtype)
    s, p = skiff.to_tensor(a), paddle.to_tensor(a)
    s.stop_gradient = p.stop_gradient = not grad
    return s, p


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_values_and_grads(name, dtype):
    v = np.concatenate([RNG.uniform(-30, 30, 12), [0.0, 0.3, -4.0, 19.99, 20.01]])
    s, p = _both(v, dtype, grad=True)
    out_s, out_p = getattr(skiff, name)(s), getattr(paddle, name)(p)
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), **_tol(dtype))
    (g_s,) = skiff.grad(out_s.sum(), [s])
    (g_p,) = paddle.grad(out_p.sum(), [p])
    np.testing.assert_allclose(g_s.numpy(), g_p.numpy(), **_tol(dtype))
    np.testing.assert_allclose(getattr(s, name)().numpy(), out_p.numpy(), **_tol(dtype))


def test_bessel_of_integers_computes_in_float32():
    out = skiff.i0(skiff.to_tensor([1, 2]))
    assert out.dtype == skiff.float32
    np.testing.assert_allclose(out.numpy(), paddle.i0(paddle.to_tensor([1, 2])).numpy(),
                               rtol=1e-6)
    x = skiff.to_tensor([0.5, 1.0])
    skiff.i0_(x)
    np.testing.assert_allclose(x.numpy(), paddle.i0(paddle.to_tensor([0.5, 1.0])).numpy(),
                               rtol=1e-6)



@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_values_and_grads(n):
    v = np.concatenate([RNG.uniform(0.2, 8, 8), [-1.5, -0.3]])
    s, p = _both(v, "float64", grad=True)
    out_s, out_p = skiff.polygamma(s, n), paddle.polygamma(p, n)
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-8)
    (g_s,) = skiff.grad(out_s.sum(), [s])
    (g_p,) = paddle.grad(out_p.sum(), [p])
    np.testing.assert_allclose(g_s.numpy(), g_p.numpy(), rtol=1e-7)
    np.testing.assert_allclose(s.polygamma(n).numpy(), out_p.numpy(), rtol=1e-8)


def test_polygamma_in_place_and_errors():
    x = skiff.to_tensor([0.5, 2.0])
    skiff.polygamma_(x, 1)
    np.testing.assert_allclose(x.numpy(), paddle.polygamma(paddle.to_tensor([0.5, 2.0]), 1),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="n must be an int"):
        skiff.polygamma(x, 1.5)
    with pytest.raises(ValueError, match="n must be >= 0"):
        skiff.polygamma(x, -1)


@pytest.mark.parametrize("p", [1, 2, 5])
def test_multigammaln_values_and_grads(p):
    v = RNG.uniform(p / 2 + 0.1, 9, 6)
    s, q = _both(v, "float64", grad=True)
    out_s, out_q = skiff.multigammaln(s, p), paddle.multigammaln(q, p)
    np.testing.assert_allclose(out_s.numpy(), out_q.numpy(), rtol=1e-10)
    (g_s,) = skiff.grad(out_s.sum(), [s])
    (g_q,) = paddle.grad(out_q.sum(), [q])
    np.testing.assert_allclose(g_s.numpy(), g_q.numpy(), rtol=1e-8)
    with pytest.raises(ValueError, match="p must be >= 1"):
        skiff.multigammaln(s, 0)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_incomplete_gamma_values_and_grads(name, dtype):
    a = np.concatenate([RNG.uniform(0.1, 12, (3, 1)).ravel(), [0.0]]).reshape(4, 1)
    y = np.concatenate([RNG.uniform(0.05, 15, 5), [0.0]])
    # skiff broadcasts; Paddle 3.3.1's kernel misreads broadcast operands, so it gets them
    # broadcast already
    sa, _ = _both(a, dtype)
    sy, _ = _both(y, dtype, grad=True)
    _, pa = _both(np.broadcast_to(a, (4, 6)), dtype)
    _, py = _both(np.broadcast_to(y, (4, 6)), dtype, grad=True)
    out_s, out_p = getattr(skiff, name)(sa, sy), getattr(paddle, name)(pa, py)
    assert out_s.shape == [4, 6]
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=2e-5, atol=1e-6)
    (g_s,) = skiff.grad(out_s.sum(), [sy])
    (g_p,) = paddle.grad(out_p.sum(), [py])
    # (at y = 0 Paddle's formula gives NaN; skiff the one-sided limit)
    np.testing.assert_allclose(g_s.numpy()[:5], g_p.numpy().sum(0)[:5], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(getattr(sa, name)(sy).numpy(), out_p.numpy(), rtol=2e-5,
                               atol=1e-6)


def test_incomplete_gamma_checks_its_arguments():
    x = skiff.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="x must be >= 0"):
        skiff.gammainc(skiff.to_tensor([-1.0, 2.0]), x)
    with pytest.raises(ValueError, match="y must be >= 0"):
        skiff.gammaincc(x, skiff.to_tensor([-1.0, 2.0]))
    with pytest.raises(TypeError, match="float32 or float64"):
        skiff.gammainc(skiff.to_tensor([1, 2]), skiff.to_tensor([1, 2]))
    out = skiff.gammainc(x, skiff.to_tensor([1.0, 3.0], dtype="float64"))
    assert out.dtype == skiff.float64
    skiff.gammaincc_(x, skiff.to_tensor([1.0, 3.0]))
    np.testing.assert_allclose(
        x.numpy(), paddle.gammaincc(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 3.0])),
        rtol=1e-6)


def test_nextafter_and_frexp_match_paddle():
    for dtype in ("float32", "float64"):
        sx, px = _both([[1.0], [2.0], [-0.0]], dtype)
        sy, py = _both([2.0, 1.0, 0.0], dtype)
        np.testing.assert_array_equal(skiff.nextafter(sx, sy).numpy(),
                                      paddle.nextafter(px, py).numpy())
        v = [0.0, 1.0, -3.5, 8.0, 1e-30, 0.3, 123456.0, np.inf, np.nan]
        s, p = _both(v, dtype)
        for got, want in zip(skiff.frexp(s), paddle.frexp(p)):
            assert got.dtype == s.dtype
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-7)
    assert skiff.nextafter(skiff.to_tensor([1.0]),
                           skiff.to_tensor([2.0], dtype="float64")).dtype == skiff.float64
    with pytest.raises(TypeError, match="nextafter: x must be float32 or float64"):
        skiff.nextafter(skiff.to_tensor([1]), skiff.to_tensor([2]))
    with pytest.raises(TypeError, match="frexp: x must be float32 or float64"):
        skiff.frexp(skiff.to_tensor([1, 2]))
    m, e = skiff.to_tensor([3.0]).frexp()
    assert float(m) == 0.75 and float(e) == 2.0
