"""skiff.linalg.matrix_exp and cholesky_inverse against Paddle (values; gradients against
torch's: Paddle's fail where its squaring or the factor is written in place), and norm over two axes as a matrix norm ('nuc', 2, -2, 1, -1,
inf, -inf) against Paddle with its gradients."""
import numpy as np
import paddle
import pytest
import torch

import skiff

RNG = np.random.default_rng(9)
INF = float("inf")


def _pair(a, grad=False):
    s, p = skiff.to_tensor(a), paddle.to_tensor(a)
    s.stop_gradient = p.stop_gradient = not grad
    return s, p


@pytest.mark.parametrize("scale", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp_matches_paddle(scale, dtype):
    a = (RNG.standard_normal((2, 4, 4)) * scale).astype(dtype)
    s, p = _pair(a, grad=True)
    out_s, out_p = skiff.linalg.matrix_exp(s), paddle.linalg.matrix_exp(p)
    rtol = 2e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=rtol,
                               atol=rtol * np.abs(out_p.numpy()).max())
    w = RNG.standard_normal(a.shape).astype(dtype)
    (g_s,) = skiff.grad((out_s * skiff.to_tensor(w)).sum(), [s])
    t = torch.tensor(a.astype("float64"), requires_grad=True)
    (torch.linalg.matrix_exp(t) * torch.tensor(w.astype("float64"))).sum().backward()
    g_t = t.grad.numpy()
    np.testing.assert_allclose(g_s.numpy(), g_t, rtol=rtol * 10, atol=rtol * 10 * np.abs(g_t).max())


def test_matrix_exp_rejects_non_square():
    with pytest.raises(skiff.Error, match="square"):
        skiff.linalg.matrix_exp(skiff.randn([3, 4]))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_matches_paddle(upper):
    m = RNG.standard_normal((4, 4))
    factor = np.linalg.cholesky(m @ m.T + 4 * np.eye(4))
    factor = factor.T if upper else factor
    s, p = _pair(factor, grad=True)
    out_s = skiff.linalg.cholesky_inverse(s, upper=upper)
    out_p = paddle.linalg.cholesky_inverse(p, upper=upper)
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-10)
    a = factor.T @ factor if upper else factor @ factor.T
    np.testing.assert_allclose(out_s.numpy(), np.linalg.inv(a), rtol=1e-10)
    (g_s,) = skiff.grad((out_s * out_s).sum(), [s])
    t = torch.tensor(factor, requires_grad=True)
    (torch.cholesky_inverse(t, upper=upper) ** 2).sum().backward()
    # torch differentiates every entry of x; the triangle the factor holds is what counts
    mask = np.triu(np.ones((4, 4))) if upper else np.tril(np.ones((4, 4)))
    np.testing.assert_allclose(g_s.numpy(), t.grad.numpy() * mask, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(s.cholesky_inverse(upper=upper).numpy(), out_s.numpy())
    with pytest.raises(skiff.Error, match="2-D"):
        skiff.linalg.cholesky_inverse(skiff.randn([2, 3, 3]))
    with pytest.raises(skiff.Error, match="square"):
        skiff.linalg.cholesky_inverse(skiff.randn([3, 4]))


@pytest.mark.parametrize("p", ["fro", "nuc", 2, -2, 1, -1, INF, -INF])
@pytest.mark.parametrize("axis", [[0, 1], (2, 0), [-1, -2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm_over_two_axes_is_a_matrix_norm(p, axis, keepdim):
    a = RNG.standard_normal((3, 4, 5))
    s, q = _pair(a, grad=True)
    out_s = skiff.linalg.norm(s, p=p, axis=axis, keepdim=keepdim)
    out_q = paddle.linalg.norm(q, p=p, axis=list(axis), keepdim=keepdim)
    assert out_s.shape == list(out_q.shape)
    np.testing.assert_allclose(out_s.numpy(), out_q.numpy(), rtol=1e-10)
    np.testing.assert_allclose(out_s.numpy().squeeze(),
                               np.linalg.norm(a, ord=p, axis=tuple(axis)), rtol=1e-10)
    (g_s,) = skiff.grad(out_s.sum(), [s])
    (g_q,) = paddle.grad(out_q.sum(), [q])
    np.testing.assert_allclose(g_s.numpy(), g_q.numpy(), rtol=1e-8, atol=1e-10)


def test_norm_arguments():
    x = skiff.randn([3, 4])
    np.testing.assert_allclose(skiff.norm(x, p="nuc").numpy(),
                               np.linalg.norm(x.numpy(), "nuc"), rtol=1e-5)
    np.testing.assert_allclose(x.norm(p=2, axis=[0, 1]).numpy(),
                               np.linalg.norm(x.numpy(), 2), rtol=1e-5)
    with pytest.raises(ValueError, match="over two axes p must be"):
        skiff.linalg.norm(x, p=3, axis=[0, 1])
    with pytest.raises(ValueError, match="needs two axes"):
        skiff.linalg.norm(x, p="nuc", axis=1)
    with pytest.raises(ValueError, match="more than once"):
        skiff.linalg.norm(x, p=2, axis=[1, -1])
