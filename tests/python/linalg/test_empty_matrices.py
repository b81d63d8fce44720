"""Empty matrices ([0, 3], [3, 0], a batch of [0, 3]) through paddle.linalg's functions get
numpy's (or, where numpy refuses, Paddle's and torch's) answers, never a crash: no singular
values, identities for full orthonormal factors, zeros for pseudo-inverses and
least-squares solutions, rank 0, condition number 0."""
import numpy as np
import pytest

import skiff

SHAPES = [[0, 3], [3, 0], [2, 0, 3]]


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_and_svdvals(shape):
    x = skiff.zeros(shape)
    want = np.linalg.svd(np.zeros(shape, np.float32), full_matrices=False)
    got = skiff.linalg.svd(x)
    assert [g.shape for g in got] == [list(w.shape) for w in want]
    u, s, vh = skiff.linalg.svd(x, full_matrices=True)
    wu, ws, wvh = np.linalg.svd(np.zeros(shape, np.float32), full_matrices=True)
    np.testing.assert_array_equal(u.numpy(), wu)
    np.testing.assert_array_equal(vh.numpy(), wvh)
    assert skiff.linalg.svdvals(x).shape == list(ws.shape)


@pytest.mark.parametrize("shape", SHAPES)
def test_pinv_matrix_rank_and_cond(shape):
    x, a = skiff.zeros(shape), np.zeros(shape, np.float32)
    np.testing.assert_array_equal(skiff.linalg.pinv(x).numpy(), np.linalg.pinv(a))
    np.testing.assert_array_equal(skiff.linalg.matrix_rank(x).numpy(), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(skiff.linalg.cond(x).numpy(), np.zeros(shape[:-2]))


def test_lstsq_of_no_equations_is_the_zero_solution():
    solution, residuals, rank, values = skiff.linalg.lstsq(skiff.zeros([0, 3]), skiff.zeros([0, 2]),
                                                           driver="gelsd")
    np.testing.assert_array_equal(solution.numpy(), np.zeros([3, 2]))
    assert int(rank) == 0 and values.shape == [0] and residuals.shape == [0]


@pytest.mark.parametrize("fn,want", [
    (skiff.linalg.det, np.ones([2])), (skiff.linalg.inv, np.zeros([2, 0, 0])),
])
def test_square_functions_of_empty_matrices(fn, want):
    np.testing.assert_array_equal(fn(skiff.zeros([2, 0, 0])).numpy(), want)


def test_eigh_and_qr_of_empty_matrices():
    w, v = skiff.linalg.eigh(skiff.zeros([0, 0]))
    assert w.shape == [0] and v.shape == [0, 0]
    q, r = skiff.linalg.qr(skiff.zeros([0, 3]))
    assert q.shape == [0, 0] and r.shape == [0, 3]
