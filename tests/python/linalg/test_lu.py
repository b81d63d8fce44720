"""skiff.linalg.lu, lu_unpack and lu_solve against Paddle: packed factors, pivots, infos,
P L U for square, wide, tall and batched matrices, gradients through lu and lu_unpack,
solves with trans, Tensor methods and the errors."""
import numpy as np
import paddle
import pytest

import skiff

RNG = np.random.default_rng(11)


def _pair(a, grad=False):
    s, p = skiff.to_tensor(a), paddle.to_tensor(a)
    s.stop_gradient = p.stop_gradient = not grad
    return s, p


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3), (2, 4, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_matches_paddle(shape, dtype):
    a = RNG.standard_normal(shape).astype(dtype)
    s, p = _pair(a)
    lu_s, piv_s, info_s = skiff.linalg.lu(s, get_infos=True)
    lu_p, piv_p, info_p = paddle.linalg.lu(p, get_infos=True)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(lu_s.numpy(), lu_p.numpy(), rtol=tol, atol=tol)
    np.testing.assert_array_equal(piv_s.numpy(), piv_p.numpy())
    assert piv_s.dtype == skiff.int32 and info_s.dtype == skiff.int32
    np.testing.assert_array_equal(info_s.numpy(), info_p.numpy())
    for got, want in zip(skiff.linalg.lu_unpack(lu_s, piv_s), paddle.linalg.lu_unpack(lu_p, piv_p)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    lu_m, piv_m = s.lu()
    np.testing.assert_array_equal(lu_m.numpy(), lu_s.numpy())


def test_lu_reports_singular_matrices():
    lu, piv, info = skiff.linalg.lu(skiff.to_tensor([[1.0, 2.0], [2.0, 4.0]]), get_infos=True)
    assert int(info) == 2
    np.testing.assert_allclose(lu.numpy(), [[2.0, 4.0], [0.5, 0.0]])
    np.testing.assert_array_equal(piv.numpy(), [2, 2])


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_lu_gradients_match_paddle(shape):
    a = RNG.standard_normal(shape)
    w = RNG.standard_normal(shape)
    s, p = _pair(a, grad=True)
    lu_s, _ = skiff.linalg.lu(s)
    lu_p, _ = paddle.linalg.lu(p)
    (g_s,) = skiff.grad((lu_s * skiff.to_tensor(w)).sum(), [s])
    (g_p,) = paddle.grad((lu_p * paddle.to_tensor(w)).sum(), [p])
    np.testing.assert_allclose(g_s.numpy(), g_p.numpy(), rtol=1e-9, atol=1e-10)
    # and through the unpacked factors
    s, p = _pair(a, grad=True)
    _, l_s, u_s = skiff.linalg.lu_unpack(*skiff.linalg.lu(s))
    _, l_p, u_p = paddle.linalg.lu_unpack(*paddle.linalg.lu(p))
    (g_s,) = skiff.grad(l_s.sum() + (u_s * u_s).sum(), [s])
    (g_p,) = paddle.grad(l_p.sum() + (u_p * u_p).sum(), [p])
    np.testing.assert_allclose(g_s.numpy(), g_p.numpy(), rtol=1e-9, atol=1e-10)


def test_lu_unpack_flags():
    lu, piv = skiff.linalg.lu(skiff.to_tensor(RNG.standard_normal((3, 3))))
    p, l, u = skiff.linalg.lu_unpack(lu, piv, unpack_ludata=False)
    assert l is None and u is None and p.shape == [3, 3]
    p, l, u = lu.lu_unpack(piv, unpack_pivots=False)
    assert p is None and l.shape == [3, 3] and u.shape == [3, 3]


@pytest.mark.parametrize("trans", ["N", "T", "C"])
def test_lu_solve_matches_paddle(trans):
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((4, 3))  # batch dims broadcast
    sa, pa = _pair(a)
    sb, pb = _pair(b, grad=True)
    x_s = skiff.linalg.lu_solve(sb, *skiff.linalg.lu(sa), trans=trans)
    x_p = paddle.linalg.lu_solve(pb, *paddle.linalg.lu(pa), trans=trans)
    assert x_s.shape == [2, 4, 3]
    np.testing.assert_allclose(x_s.numpy(), x_p.numpy(), rtol=1e-10, atol=1e-12)
    op = a if trans == "N" else np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(op @ x_s.numpy(), np.broadcast_to(b, (2, 4, 3)), atol=1e-10)
    (g_s,) = skiff.grad(x_s.sum(), [sb])
    (g_p,) = paddle.grad(x_p.sum(), [pb])
    np.testing.assert_allclose(g_s.numpy(), g_p.numpy(), rtol=1e-9, atol=1e-10)


def test_errors():
    x = skiff.to_tensor(RNG.standard_normal((3, 3)))
    lu, piv = skiff.linalg.lu(x)
    with pytest.raises(ValueError, match="trans must be 'N', 'T' or 'C'"):
        skiff.linalg.lu_solve(x, lu, piv, trans="X")
    with pytest.raises(skiff.Error, match="b must have 3 rows"):
        skiff.linalg.lu_solve(skiff.to_tensor(np.ones((2, 1))), lu, piv)
    with pytest.raises(skiff.Error, match=r"lu: x must be a batch of matrices"):
        skiff.linalg.lu(skiff.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="int32"):
        skiff.linalg.lu_unpack(lu, skiff.to_tensor([1, 2, 3]))
    with pytest.raises(skiff.Error, match="pivots"):
        skiff.linalg.lu_unpack(lu, skiff.to_tensor([1, 2], dtype="int32"))
