"""skiff.linalg.householder_product and ormqr against Paddle's values (its gradients fail:
it writes into x, which autograd then refuses) and torch's gradients for x, tau and y, with the reflectors of a real QR factorisation rebuilding Q, Tensor methods and the
errors Paddle raises."""
import numpy as np
import paddle
import pytest
import torch

import skiff

RNG = np.random.default_rng(5)


def _pair(a, grad=False):
    s, p = skiff.to_tensor(a), paddle.to_tensor(a)
    s.stop_gradient = p.stop_gradient = not grad
    return s, p


@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((5, 3), 2), ((2, 4, 4), 3)])
def test_householder_product_values_and_grads(shape, k):
    x = RNG.standard_normal(shape)
    tau = RNG.uniform(0.5, 1.8, shape[:-2] + (k,))
    sx, px = _pair(x, grad=True)
    st, pt = _pair(tau, grad=True)
    q_s = skiff.linalg.householder_product(sx, st)
    q_p = paddle.linalg.householder_product(px.clone(), pt)  # (Paddle writes into its x)
    np.testing.assert_allclose(q_s.numpy(), q_p.numpy(), rtol=1e-10, atol=1e-12)
    w = RNG.standard_normal(q_s.shape)
    gs = skiff.grad((q_s * skiff.to_tensor(w)).sum(), [sx, st])
    tx, tt = torch.tensor(x, requires_grad=True), torch.tensor(tau, requires_grad=True)
    (torch.linalg.householder_product(tx, tt) * torch.tensor(w)).sum().backward()
    for a, b in zip(gs, (tx.grad, tt.grad)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(sx.householder_product(st).numpy(), q_s.numpy())


def test_householder_product_rebuilds_q_of_geqrf():
    # geqrf's reflectors of a matrix, by hand (LAPACK's dlarfg convention)
    a = RNG.standard_normal((5, 3))
    r, taus = a.copy(), []
    for j in range(3):
        alpha, rest = r[j, j], r[j + 1:, j]
        beta = -np.copysign(np.hypot(alpha, np.linalg.norm(rest)), alpha)
        taus.append((beta - alpha) / beta)
        v = np.concatenate([[1.0], rest / (alpha - beta)])
        r[j:, j:] -= taus[-1] * np.outer(v, v @ r[j:, j:])
        r[j + 1:, j] = v[1:]
    q = skiff.linalg.householder_product(skiff.to_tensor(r), skiff.to_tensor(np.array(taus)))
    np.testing.assert_allclose(q.numpy() @ np.triu(r[:3]), a, atol=1e-12)
    np.testing.assert_allclose(q.numpy().T @ q.numpy(), np.eye(3), atol=1e-12)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("m,n", [(3, 3), (4, 3)])
def test_ormqr_values_and_grads(left, transpose, m, n):
    x = RNG.standard_normal((2, m, n))
    tau = RNG.uniform(0.5, 1.8, (2, n))
    rows = (m if transpose else n) if left else 5
    cols = 2 if left else (n if transpose else m)
    y = RNG.standard_normal((2, rows, cols))
    sx, px = _pair(x, grad=True)
    st, pt = _pair(tau, grad=True)
    sy, py = _pair(y, grad=True)
    out_s = skiff.linalg.ormqr(sx, st, sy, left, transpose)
    if left or m == n:  # (Paddle's shape checks on the right contradict its product)
        out_p = paddle.linalg.ormqr(px.clone(), pt, py, left, transpose)
        np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-10, atol=1e-12)
    gs = skiff.grad(out_s.sum(), [sx, st, sy])
    tx, tt, ty = [torch.tensor(v, requires_grad=True) for v in (x, tau, y)]
    q = torch.linalg.householder_product(tx, tt)  # Paddle's Q: [..., m, n]
    q = q.mT if transpose else q
    want = q @ ty if left else ty @ q
    np.testing.assert_allclose(out_s.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    want.sum().backward()
    for a, b in zip(gs, (tx.grad, tt.grad, ty.grad)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-10)


def test_errors():
    with pytest.raises(skiff.Error, match="at least as many rows as columns"):
        skiff.linalg.householder_product(skiff.randn([3, 4]), skiff.randn([3]))
    with pytest.raises(skiff.Error, match="tau has 4 reflectors but x only 3 columns"):
        skiff.linalg.householder_product(skiff.randn([4, 3]), skiff.randn([4]))
    with pytest.raises(skiff.Error, match="tau must be"):
        skiff.linalg.householder_product(skiff.randn([2, 4, 3]), skiff.randn([3]))
    with pytest.raises(skiff.Error, match="ormqr: y must have 3 rows"):
        skiff.linalg.ormqr(skiff.randn([4, 3]), skiff.randn([3]), skiff.randn([4, 2]))
    with pytest.raises(TypeError, match="x and tau must share a dtype"):
        skiff.linalg.householder_product(skiff.randn([4, 3]), skiff.randn([3], dtype="float64"))
