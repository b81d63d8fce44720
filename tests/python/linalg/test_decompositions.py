"""skiff.linalg's inverses, determinants, solves and factorisations (inv, det, slogdet,
solve, triangular_solve, cholesky, cholesky_solve, eigh, eigvalsh, qr) against torch.linalg
(values and gradients, float64) and paddle (argument semantics), a static program, and the
errors for singular / bad inputs."""
import numpy as np
import pytest
import torch

import skiff

from linalg_reference import run_both, spd, well_conditioned

rng = np.random.default_rng(0)


def test_inv_det_slogdet_match_torch():
    a = well_conditioned(2, 3, 3)
    run_both(skiff.linalg.inv, torch.linalg.inv, a)
    run_both(skiff.linalg.det, torch.linalg.det, a)
    run_both(lambda x: skiff.linalg.slogdet(x)[1], lambda t: torch.linalg.slogdet(t)[1], a)
    sd = skiff.linalg.slogdet(skiff.to_tensor(a)).numpy()
    assert sd.shape == (2, 2)
    assert skiff.inverse is skiff.linalg.inv


def test_solve_matrix_vector_and_broadcast():
    a, b = well_conditioned(2, 3, 3), rng.standard_normal((2, 3, 2))
    run_both(skiff.linalg.solve, torch.linalg.solve, a, b)
    run_both(lambda x, y: skiff.linalg.solve(x, y, left=False),
             lambda x, y: torch.linalg.solve(x, y, left=False), a, rng.standard_normal((2, 2, 3)))
    v = rng.standard_normal(3)
    got = skiff.linalg.solve(skiff.to_tensor(a[0]), skiff.to_tensor(v)).numpy()
    np.testing.assert_allclose(got, np.linalg.solve(a[0], v), rtol=1e-10)
    bb = rng.standard_normal((3, 2))
    run_both(skiff.linalg.solve, torch.linalg.solve, a, bb)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_matches_torch(upper, transpose, unit):
    a, b = well_conditioned(2, 4, 4), rng.standard_normal((2, 4, 3))

    def ref(x, y):
        t = torch.triu(x) if upper else torch.tril(x)
        if transpose:
            return torch.linalg.solve_triangular(t.mT, y, upper=not upper, unitriangular=unit)
        return torch.linalg.solve_triangular(t, y, upper=upper, unitriangular=unit)
    run_both(lambda x, y: skiff.linalg.triangular_solve(x, y, upper, transpose, unit), ref, a, b)


def test_cholesky_and_cholesky_solve_match_torch():
    a = spd(2, 4, 4)
    sym = lambda t: (t + t.mT) / 2  # noqa: E731  (symmetric parametrisation for gradients)
    run_both(lambda x: skiff.linalg.cholesky((x + skiff.linalg.matrix_transpose(x)) / 2),
             lambda t: torch.linalg.cholesky(sym(t)), a)
    run_both(lambda x: skiff.linalg.cholesky((x + x.mT) / 2, upper=True),
             lambda t: torch.linalg.cholesky(sym(t), upper=True), a)
    l = np.linalg.cholesky(a)
    b = rng.standard_normal((2, 4, 2))
    run_both(lambda y, f: skiff.linalg.cholesky_solve(y, f),
             lambda y, f: torch.cholesky_solve(y, torch.tril(f)), b, l)
    u = np.swapaxes(l, -1, -2)
    np.testing.assert_allclose(
        skiff.linalg.cholesky_solve(skiff.to_tensor(b), skiff.to_tensor(u), upper=True).numpy(),
        np.linalg.solve(a, b), rtol=1e-10)


def test_eigh_eigvalsh_match_torch():
    a = spd(2, 4, 4)
    sym = lambda t: (t + t.mT) / 2  # noqa: E731
    ssym = lambda x: (x + skiff.linalg.matrix_transpose(x)) / 2  # noqa: E731
    run_both(lambda x: skiff.linalg.eigvalsh(ssym(x)),
             lambda t: torch.linalg.eigvalsh(sym(t)), a)
    # eigenvectors are defined up to sign: compare their squares (values and gradients)
    run_both(lambda x: skiff.linalg.eigh(ssym(x))[1] ** 2,
             lambda t: torch.linalg.eigh(sym(t))[1] ** 2, a)
    w_u = skiff.linalg.eigh(skiff.to_tensor(np.triu(a)), UPLO="U")[0].numpy()
    np.testing.assert_allclose(w_u, np.linalg.eigvalsh(a), rtol=1e-10)


@pytest.mark.parametrize("shape", [(2, 5, 3), (4, 4)])
def test_qr_matches_torch(shape):
    a = rng.standard_normal(shape)
    run_both(lambda x: skiff.linalg.qr(x)[0], lambda t: torch.linalg.qr(t)[0], a)
    run_both(lambda x: skiff.linalg.qr(x)[1], lambda t: torch.linalg.qr(t)[1], a)
    run_both(lambda x: skiff.linalg.qr(x, "r"), lambda t: torch.linalg.qr(t)[1], a)


def test_qr_modes_shapes_like_paddle():
    a = rng.standard_normal((3, 5))
    for mode in ("reduced", "complete"):
        q, r = skiff.linalg.qr(skiff.to_tensor(a), mode)
        tq, tr = torch.linalg.qr(torch.tensor(a), mode)
        assert list(q.shape) == list(tq.shape) and list(r.shape) == list(tr.shape)
        np.testing.assert_allclose(q.numpy() @ r.numpy(), a, rtol=1e-10, atol=1e-12)
    t = rng.standard_normal((5, 3)).astype("float32")
    q, r = skiff.linalg.qr(skiff.to_tensor(t), "complete")
    assert q.shape == [5, 5] and r.shape == [5, 3]
    np.testing.assert_allclose(q.numpy() @ r.numpy(), t, rtol=1e-5, atol=1e-5)
    assert skiff.linalg.qr(skiff.to_tensor(t), "r").shape == [3, 3]
    with pytest.raises(ValueError, match="qr: mode"):
        skiff.linalg.qr(skiff.to_tensor(t), "full")
    with pytest.raises(skiff.Error, match="qr: x must be"):
        skiff.linalg.qr(skiff.to_tensor(np.ones(3)))


def test_static_program_solve_and_det():
    import skiff.static as static
    a, b = well_conditioned(3, 3), rng.standard_normal((3, 2))
    skiff.enable_static()
    try:
        prog = static.Program()
        with static.program_guard(prog):
            x = static.data("x", [3, 3], "float64")
            y = static.data("y", [3, 2], "float64")
            out = skiff.linalg.solve(x, y)
            d = skiff.linalg.det(x)
        res = static.Executor().run(prog, feed={"x": a, "y": b}, fetch_list=[out, d])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(res[0], np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(res[1], np.linalg.det(a), rtol=1e-10)


def test_errors_name_the_function_and_batch():
    sing = np.stack([np.eye(2), np.ones((2, 2))])
    with pytest.raises(skiff.Error, match="batch index 1"):
        skiff.linalg.inv(skiff.to_tensor(sing))
    with pytest.raises(skiff.Error, match="not positive definite"):
        skiff.linalg.cholesky(skiff.to_tensor(-np.eye(3)))
    with pytest.raises(skiff.Error, match="inv: x must be a batch of square"):
        skiff.linalg.inv(skiff.to_tensor(np.ones((2, 3))))
    with pytest.raises(skiff.Error, match="solve: y must have 3 rows"):
        skiff.linalg.solve(skiff.to_tensor(np.eye(3)), skiff.to_tensor(np.ones((2, 1))))
    with pytest.raises(ValueError, match="UPLO"):
        skiff.linalg.eigh(skiff.to_tensor(np.eye(2)), UPLO="X")
    with pytest.raises(TypeError, match="matrix_power"):
        skiff.linalg.matrix_power(skiff.to_tensor(np.eye(2)), 1.5)
