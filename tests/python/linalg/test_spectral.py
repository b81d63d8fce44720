"""skiff.linalg's functions of the singular value decomposition (svd, svdvals, pinv,
matrix_rank, cond, lstsq) against torch.linalg (values and gradients, float64) and paddle
(argument semantics and output shapes), a static program with qr, and the gradients qr and
svd refuse."""
import numpy as np
import pytest
import torch

import skiff

from linalg_reference import run_both

rng = np.random.default_rng(1)
INF = float("inf")


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 4), (4, 4)])
def test_svd_matches_torch(shape):
    a = rng.standard_normal(shape)
    # singular vectors are defined up to a shared sign: compare squares and products
    def tsvd(t):
        return torch.linalg.svd(t, full_matrices=False)
    run_both(lambda x: skiff.linalg.svd(x)[1], lambda t: tsvd(t)[1], a)
    run_both(skiff.linalg.svdvals, torch.linalg.svdvals, a)
    run_both(lambda x: skiff.linalg.svd(x)[0] ** 2, lambda t: tsvd(t)[0] ** 2, a)
    run_both(lambda x: skiff.linalg.svd(x)[2] ** 2, lambda t: tsvd(t)[2] ** 2, a)

    def rebuilt(svd):
        return lambda x: (svd(x)[0] * svd(x)[1].unsqueeze(-2)) @ svd(x)[2]
    run_both(rebuilt(skiff.linalg.svd), rebuilt(tsvd), a)


def test_svd_full_matrices_shapes_like_paddle():
    a = rng.standard_normal((2, 3, 5))
    u, s, vh = skiff.linalg.svd(skiff.to_tensor(a), full_matrices=True)
    assert u.shape == [2, 3, 3] and s.shape == [2, 3] and vh.shape == [2, 5, 5]
    np.testing.assert_allclose(vh.numpy() @ np.swapaxes(vh.numpy(), -1, -2),
                               np.stack([np.eye(5)] * 2), atol=1e-12)
    np.testing.assert_allclose((u.numpy() * s.numpy()[:, None, :]) @ vh.numpy()[:, :3], a,
                               rtol=1e-10, atol=1e-12)
    with pytest.raises(skiff.Error, match="svd: x must be"):
        skiff.linalg.svd(skiff.to_tensor(np.ones(3)))


@pytest.mark.parametrize("shape", [(2, 5, 3), (3, 4)])
def test_pinv_matches_torch(shape):
    a = rng.standard_normal(shape)
    run_both(skiff.linalg.pinv, torch.linalg.pinv, a)
    sym = a[..., :3, :3] + np.swapaxes(a[..., :3, :3], -1, -2)
    got = skiff.linalg.pinv(skiff.to_tensor(sym), hermitian=True).numpy()
    np.testing.assert_allclose(got, np.linalg.pinv(sym), rtol=1e-9, atol=1e-10)
    low = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    got = skiff.linalg.pinv(skiff.to_tensor(low), rcond=1e-10).numpy()
    np.testing.assert_allclose(got, np.linalg.pinv(low), rtol=1e-9, atol=1e-12)


def test_matrix_rank_like_paddle():
    import paddle
    full = rng.standard_normal((2, 4, 3))
    low = np.stack([np.outer(rng.standard_normal(4), rng.standard_normal(3)), full[0]])
    for a, kw in ((full, {}), (low, {}), (low, {"tol": 0.5}), (low, {"atol": 1e-3}),
                  (low, {"rtol": 0.9}), (low, {"atol": 1e-3, "rtol": 0.5})):
        got = skiff.linalg.matrix_rank(skiff.to_tensor(a), **kw)
        ref = paddle.linalg.matrix_rank(paddle.to_tensor(a), **kw)
        assert got.dtype.name == "int64"
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
    sym = full[0] @ full[0].T
    got = skiff.linalg.matrix_rank(skiff.to_tensor(sym), hermitian=True)
    assert int(got) == 3
    tol = skiff.to_tensor(np.array([1e-6, 1e6]))
    np.testing.assert_array_equal(skiff.linalg.matrix_rank(skiff.to_tensor(full), tol).numpy(),
                                  [3, 0])


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, INF, -INF])
def test_cond_matches_torch(p):
    a = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    np.testing.assert_allclose(skiff.linalg.cond(skiff.to_tensor(a), p).numpy(),
                               torch.linalg.cond(torch.tensor(a), p).numpy(), rtol=1e-10)

    def ref(t):  # torch.linalg.cond's own backward fails for these p in torch 2.x
        if p in (None, 2, -2):
            return torch.linalg.cond(t, p)
        return torch.linalg.matrix_norm(t, p) * torch.linalg.matrix_norm(torch.linalg.inv(t), p)
    run_both(lambda x: skiff.linalg.cond(x, p), ref, a)


def test_cond_rectangular_and_errors():
    a = rng.standard_normal((5, 3))
    run_both(skiff.linalg.cond, torch.linalg.cond, a)
    with pytest.raises(skiff.Error, match="cond: p='fro' needs square"):
        skiff.linalg.cond(skiff.to_tensor(a), "fro")
    with pytest.raises(ValueError, match="cond: p"):
        skiff.linalg.cond(skiff.to_tensor(a), 3)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_outputs_like_paddle(driver):
    import paddle
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    got = skiff.linalg.lstsq(skiff.to_tensor(a), skiff.to_tensor(b), driver=driver)
    ref = paddle.linalg.lstsq(paddle.to_tensor(a), paddle.to_tensor(b), driver=driver)
    for g, r in zip(got, ref):
        assert g.shape == list(r.shape) and g.dtype.name == r.numpy().dtype.name
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-9, atol=1e-10)


def test_lstsq_wide_and_rank_deficient_like_paddle():
    import paddle
    low = rng.standard_normal((5, 3))
    low[:, 2] = low[:, 1]
    wide = rng.standard_normal((3, 5))
    for a in (low, wide):
        b = rng.standard_normal((a.shape[0], 2))
        got = skiff.linalg.lstsq(skiff.to_tensor(a), skiff.to_tensor(b), driver="gelsd")
        ref = paddle.linalg.lstsq(paddle.to_tensor(a), paddle.to_tensor(b), driver="gelsd")
        for g, r in zip(got, ref):
            assert g.shape == list(r.shape)
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="lstsq: driver"):
        skiff.linalg.lstsq(skiff.to_tensor(low), skiff.to_tensor(low), driver="foo")
    with pytest.raises(skiff.Error, match="lstsq: y must be"):
        skiff.linalg.lstsq(skiff.to_tensor(low), skiff.to_tensor(wide))


def test_lstsq_gradient_matches_torch():
    a, b = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 5, 2))
    run_both(lambda x, y: skiff.linalg.lstsq(x, y, driver="gelsd")[0],
             lambda x, y: torch.linalg.lstsq(x, y, driver="gelsd").solution, a, b)


def test_static_program_qr_svd_pinv():
    import skiff.static as static
    a = rng.standard_normal((4, 3))
    skiff.enable_static()
    try:
        prog = static.Program()
        with static.program_guard(prog):
            x = static.data("x", [4, 3], "float64")
            q, r = skiff.linalg.qr(x)
            outs = [q, r, skiff.linalg.svdvals(x), skiff.linalg.pinv(x),
                    skiff.linalg.lstsq(x, x)[1]]
        res = static.Executor().run(prog, feed={"x": a}, fetch_list=outs)
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(res[0] @ res[1], a, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res[2], np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(res[3], np.linalg.pinv(a), rtol=1e-9, atol=1e-12)
    assert res[4].shape == (0,)


def test_qr_and_svd_gradients_refuse_unsupported_shapes():
    x = skiff.to_tensor(rng.standard_normal((3, 5)), stop_gradient=False)
    q, r = skiff.linalg.qr(x)
    with pytest.raises(skiff.Error, match="qr_grad: the gradient needs .* m >= n"):
        (q.sum() + r.sum()).backward()
    x = skiff.to_tensor(rng.standard_normal((3, 5)), stop_gradient=False)
    u = skiff.linalg.svd(x, full_matrices=True)[0]
    with pytest.raises(skiff.Error, match="svd_grad: the gradient needs full_matrices=False"):
        u.sum().backward()
