"""skiff.linalg.svd_lowrank and pca_lowrank: Paddle's shapes and defaults, exact recovery of
low-rank matrices (wide, tall, batched, with M), agreement of the leading singular values
with a full SVD, PCA's centring, reproducibility under a seed and the errors."""
import numpy as np
import pytest

import skiff

RNG = np.random.default_rng(2)


def _low_rank(shape, r):
    *batch, m, n = shape
    return RNG.standard_normal(tuple(batch) + (m, r)) @ RNG.standard_normal(tuple(batch) + (r, n))


@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (3, 7, 6)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape):
    a = _low_rank(shape, 3)
    u, s, v = skiff.linalg.svd_lowrank(skiff.to_tensor(a), q=4)
    m, n = shape[-2:]
    assert u.shape == list(shape[:-2]) + [m, 4] and s.shape == list(shape[:-2]) + [4]
    assert v.shape == list(shape[:-2]) + [n, 4]
    rebuilt = (u.numpy() * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy(), -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-9)
    np.testing.assert_allclose(s.numpy()[..., :3], np.linalg.svd(a, compute_uv=False)[..., :3],
                               rtol=1e-9)
    eye = np.eye(4)
    np.testing.assert_allclose(np.swapaxes(u.numpy(), -1, -2) @ u.numpy(),
                               np.broadcast_to(eye, u.shape[:-2] + [4, 4]), atol=1e-9)


def test_svd_lowrank_defaults_and_m():
    a = RNG.standard_normal((6, 4))
    u, s, v = skiff.linalg.svd_lowrank(skiff.to_tensor(a))  # q = min(6, m, n) = 4: exact
    assert u.shape == [6, 4] and s.shape == [4] and v.shape == [4, 4]
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-9)
    mean = a.mean(0, keepdims=True)
    u, s, v = skiff.linalg.svd_lowrank(skiff.to_tensor(a), M=skiff.to_tensor(mean))
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a - mean, compute_uv=False), rtol=1e-9)
    skiff.seed(3)
    first = skiff.linalg.svd_lowrank(skiff.to_tensor(a), q=2, niter=0)[0].numpy()
    skiff.seed(3)
    np.testing.assert_array_equal(skiff.to_tensor(a).svd_lowrank(q=2, niter=0)[0].numpy(), first)


def test_pca_lowrank_centres_the_columns():
    a = _low_rank((2, 10, 5), 2) + 7.0
    u, s, v = skiff.linalg.pca_lowrank(skiff.to_tensor(a), q=3)
    centred = a - a.mean(-2, keepdims=True)
    np.testing.assert_allclose(s.numpy()[..., :2], np.linalg.svd(centred, compute_uv=False)[..., :2],
                               rtol=1e-9)
    rebuilt = (u.numpy() * s.numpy()[..., None, :]) @ np.swapaxes(v.numpy(), -1, -2)
    np.testing.assert_allclose(rebuilt, centred, atol=1e-9)
    _, s_raw, _ = skiff.linalg.pca_lowrank(skiff.to_tensor(a[0]), center=False)
    assert s_raw.shape == [5]
    np.testing.assert_allclose(s_raw.numpy()[:2], np.linalg.svd(a[0], compute_uv=False)[:2],
                               rtol=1e-9)


def test_errors():
    x = skiff.randn([6, 4])
    with pytest.raises(ValueError, match=r"q\(=5\) must be a non-negative integer"):
        skiff.linalg.svd_lowrank(x, q=5)
    with pytest.raises(ValueError, match=r"q\(=8\)"):
        skiff.linalg.pca_lowrank(x, q=8)
    with pytest.raises(ValueError, match=r"niter must be in \[0, 1000\], got -1"):
        skiff.linalg.svd_lowrank(x, niter=-1)
    with pytest.raises(ValueError, match=r"got 100000000000000000000"):
        skiff.linalg.svd_lowrank(x, niter=10**20)
    u, s, v = skiff.linalg.svd_lowrank(skiff.zeros([0, 5]))  # empty: empty factors
    assert (u.shape, s.shape, v.shape) == ([0, 0], [0], [5, 0])
    with pytest.raises(skiff.Error, match="batch of matrices"):
        skiff.linalg.svd_lowrank(skiff.randn([4]))
