"""skiff.linalg's norms and statistics (vector_norm, matrix_norm, cov, corrcoef) against
torch.linalg / torch (values and gradients, float64) and paddle (argument semantics), and a
static program."""
import numpy as np
import pytest
import torch

import skiff

from linalg_reference import run_both

rng = np.random.default_rng(1)
INF = float("inf")


@pytest.mark.parametrize("p", [2.0, 1, 3.5, INF, -INF])
@pytest.mark.parametrize("axis,keepdim", [(None, False), (1, True), ((0, 2), False)])
def test_vector_norm_matches_torch(p, axis, keepdim):
    a = rng.standard_normal((2, 3, 4))
    run_both(lambda x: skiff.linalg.vector_norm(x, p, axis, keepdim),
             lambda t: torch.linalg.vector_norm(t, p, axis, keepdim), a)


def test_vector_norm_zero_counts_nonzeros_like_paddle():
    a = np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]])
    x = skiff.to_tensor(a)
    assert float(skiff.linalg.vector_norm(x, 0)) == 3.0
    np.testing.assert_array_equal(skiff.linalg.vector_norm(x, 0, axis=1).numpy(), [2.0, 1.0])
    assert list(skiff.linalg.vector_norm(x, 0).shape) == []
    with pytest.raises(TypeError, match="vector_norm: p"):
        skiff.linalg.vector_norm(x, "fro")


@pytest.mark.parametrize("p", ["fro", "nuc", 2, -2, 1, -1, INF, -INF])
def test_matrix_norm_matches_torch(p):
    a = rng.standard_normal((2, 4, 3))
    run_both(lambda x: skiff.linalg.matrix_norm(x, p),
             lambda t: torch.linalg.matrix_norm(t, p), a)
    wide = rng.standard_normal((3, 5))
    run_both(lambda x: skiff.linalg.matrix_norm(x, p),
             lambda t: torch.linalg.matrix_norm(t, p), wide)


@pytest.mark.parametrize("p", ["fro", 2, 1, -INF])
def test_matrix_norm_axis_and_keepdim(p):
    a = rng.standard_normal((3, 2, 4))
    run_both(lambda x: skiff.linalg.matrix_norm(x, p, axis=[2, 0], keepdim=True),
             lambda t: torch.linalg.matrix_norm(t, p, dim=(2, 0), keepdim=True), a)


def test_matrix_norm_bad_arguments():
    x = skiff.to_tensor(np.eye(3))
    with pytest.raises(ValueError, match="matrix_norm: p"):
        skiff.linalg.matrix_norm(x, 3)
    with pytest.raises(ValueError, match="matrix_norm: axis"):
        skiff.linalg.matrix_norm(x, axis=[0, 0])


@pytest.mark.parametrize("rowvar", [True, False])
@pytest.mark.parametrize("ddof", [True, False])
def test_cov_matches_torch(rowvar, ddof):
    a = rng.standard_normal((3, 6))
    ref = lambda t: torch.cov(t, correction=int(ddof))  # noqa: E731
    run_both(lambda x: skiff.linalg.cov(x if rowvar else x.T, rowvar, ddof), ref, a)


def test_cov_weights_and_vector_input():
    a = rng.standard_normal((3, 5))
    fw = np.array([1, 2, 1, 3, 1])
    aw = rng.uniform(0.5, 2.0, 5)
    for f, w in ((fw, None), (None, aw), (fw, aw)):
        ref = torch.cov(torch.tensor(a), fweights=None if f is None else torch.tensor(f),
                        aweights=None if w is None else torch.tensor(w))
        got = skiff.linalg.cov(skiff.to_tensor(a),
                               fweights=None if f is None else skiff.to_tensor(f),
                               aweights=None if w is None else skiff.to_tensor(w))
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)
    v = rng.standard_normal(7)
    got = skiff.linalg.cov(skiff.to_tensor(v))
    assert list(got.shape) == []
    np.testing.assert_allclose(float(got), np.cov(v), rtol=1e-12)
    with pytest.raises(skiff.Error, match="cov: fweights"):
        skiff.linalg.cov(skiff.to_tensor(a), fweights=skiff.to_tensor(np.ones(4, "int64")))
    with pytest.raises(skiff.Error, match="cov: x must be 1-D or 2-D"):
        skiff.linalg.cov(skiff.to_tensor(np.ones((2, 2, 2))))


@pytest.mark.parametrize("rowvar", [True, False])
def test_corrcoef_matches_torch(rowvar):
    a = rng.standard_normal((4, 6))
    run_both(lambda x: skiff.linalg.corrcoef(x if rowvar else x.T, rowvar),
             torch.corrcoef, a)
    got = skiff.linalg.corrcoef(skiff.to_tensor(a.astype("float32"))).numpy()
    np.testing.assert_allclose(got, np.corrcoef(a), rtol=1e-5, atol=1e-6)
    assert np.all(np.abs(got) <= 1.0)


def test_static_program_norms_and_cov():
    import skiff.static as static
    a = rng.standard_normal((3, 4))
    skiff.enable_static()
    try:
        prog = static.Program()
        with static.program_guard(prog):
            x = static.data("x", [3, 4], "float64")
            outs = [skiff.linalg.vector_norm(x, 3), skiff.linalg.matrix_norm(x, 1),
                    skiff.linalg.cov(x)]
        res = static.Executor().run(prog, feed={"x": a}, fetch_list=outs)
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(res[0], np.sum(np.abs(a) ** 3) ** (1 / 3), rtol=1e-10)
    np.testing.assert_allclose(res[1], np.linalg.norm(a, 1), rtol=1e-10)
    np.testing.assert_allclose(res[2], np.cov(a), rtol=1e-10)
