"""Matrix products, norms and matrices built around diagonals (skiff/tensor/linalg.py):
matmul with transposes and batches, dot, bmm, outer, mv, t, norm, dist, cdist (values and
gradients vs torch); diag_embed, diagflat, block_diag, vander and renorm against
PaddlePaddle 3.3 and torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


@pytest.mark.parametrize("xs,ys", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                   ((4,), (4, 5)), ((3, 4), (4,))])
def test_matmul_shapes_and_grads(xs, ys):
    check_grad(lambda x, y: x @ y, lambda x, y: x @ y, rand(xs, "float64", 1),
               rand(ys, "float64", 2))


def test_matmul_transposes_bmm_dot_outer_mv():
    a, b = rand((4, 3), "float64", 3), rand((5, 4), "float64", 4)
    check_grad(lambda x, y: skiff.matmul(x, y, transpose_x=True, transpose_y=True),
               lambda x, y: x.T @ y.T, a, b)
    check_grad(skiff.bmm, torch.bmm, rand((2, 3, 4), "float64", 5), rand((2, 4, 2), "float64", 6))
    check_grad(skiff.dot, torch.dot, rand((5,), "float64", 7), rand((5,), "float64", 8))
    check_grad(skiff.outer, torch.outer, rand((3,), "float64", 9), rand((4,), "float64", 10))
    check_grad(skiff.mv, torch.mv, rand((3, 4), "float64", 11), rand((4,), "float64", 12))
    check_grad(lambda x: x.t(), lambda t: t.t(), a)
    rows = skiff.dot(skiff.to_tensor(a), skiff.to_tensor(a))
    np.testing.assert_allclose(rows.numpy(), (a * a).sum(1))
    with pytest.raises(skiff.Error, match="bmm"):
        skiff.bmm(skiff.ones([2, 3]), skiff.ones([3, 2]))
    with pytest.raises(skiff.Error, match="matmul"):
        skiff.ones([2, 3]) @ skiff.ones([2, 3])


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, np.inf, -np.inf])
def test_norm(p):
    a = rand((3, 4), "float64", 13)
    tp = "fro" if p == "fro" else p
    check_grad(lambda x: skiff.norm(x, p, axis=1), lambda t: torch.linalg.vector_norm(
        t, ord=2 if tp == "fro" else tp, dim=1), a)
    np.testing.assert_allclose(skiff.norm(skiff.to_tensor(a), p).numpy(),
                               torch.linalg.vector_norm(torch.tensor(a),
                                                        ord=2 if tp == "fro" else tp).numpy())


@pytest.mark.parametrize("p", [2, 1, 3, 0, float("inf"), float("-inf")])
def test_dist_and_cdist_match_torch(p):
    a, b = rand((3, 4), "float64", 1), rand((4,), "float64", 2)
    got = skiff.dist(skiff.to_tensor(a), skiff.to_tensor(b), p)
    np.testing.assert_allclose(got.numpy(), torch.dist(torch.tensor(a), torch.tensor(b), p),
                               rtol=1e-12)
    x, y = rand((2, 3, 4), "float64", 3), rand((2, 5, 4), "float64", 4)
    if p < 0:
        pass  # torch.cdist has no negative p
    elif p == 0:
        got = skiff.cdist(skiff.to_tensor(x), skiff.to_tensor(y), p)
        np.testing.assert_array_equal(got.numpy(), torch.cdist(torch.tensor(x),
                                                               torch.tensor(y), p).numpy())
    else:
        check_grad(lambda s, t: skiff.cdist(s, t, p), lambda s, t: torch.cdist(s, t, p), x, y)
    if p == 2:
        check_grad(lambda s, t: skiff.dist(s, t, p), lambda s, t: torch.dist(s, t, p), a, b)
    with pytest.raises(skiff.Error, match="cdist"):
        skiff.cdist(skiff.ones([3, 2]), skiff.ones([3, 4]))


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (1, 0, 2), (-1, 2, 0), (2, 1, 0)])
def test_diag_embed(offset, dim1, dim2):
    a = rand((2, 3))
    got = check_grad(lambda x: skiff.diag_embed(x, offset, dim1, dim2),
                     lambda x: torch.diag_embed(x, offset, dim1, dim2), a)
    np.testing.assert_array_equal(
        got.numpy(), paddle.diag_embed(paddle.to_tensor(a), offset, dim1, dim2).numpy())
    with pytest.raises(ValueError, match="diag_embed: dim1 and dim2 must differ"):
        skiff.diag_embed(skiff.to_tensor(a), 0, 1, 1)


def test_diagflat_and_block_diag():
    a = rand((2, 2))
    for k in (0, 2, -1):
        got = check_grad(lambda x: skiff.diagflat(x, k), lambda x: torch.diagflat(x, k), a)
        np.testing.assert_array_equal(got.numpy(),
                                      paddle.diagflat(paddle.to_tensor(a), k).numpy())
    parts = [rand((1, 2), seed=1), rand((3,), seed=2), rand((2, 2), seed=3), rand((), seed=4)]
    got = check_grad(lambda *ts: skiff.block_diag(list(ts)),
                     lambda *ts: torch.block_diag(*ts), *parts)
    want = paddle.block_diag([paddle.to_tensor(p) for p in parts])
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(TypeError, match="block_diag: inputs must share one dtype"):
        skiff.block_diag([skiff.ones([2]), skiff.to_tensor([1, 2])])
    with pytest.raises(ValueError, match=r"block_diag: inputs\[0\]"):
        skiff.block_diag([skiff.ones([2, 2, 2])])


def test_vander():
    ints = np.array([1, 2, 3, -2])
    for n, inc in [(None, False), (3, True), (1, False), (0, True)]:
        got = skiff.vander(skiff.to_tensor(ints), n, inc)
        want = paddle.vander(paddle.to_tensor(ints), n, inc)
        assert got.dtype.name == "int64"
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    a = np.array([0.0, 1.5, -2.0], "float64")
    check_grad(lambda x: skiff.vander(x, 4), lambda x: torch.linalg.vander(x, N=4).flip(-1), a)
    with pytest.raises(ValueError, match="vander: x must be 1-D"):
        skiff.vander(skiff.ones([2, 2]))


@pytest.mark.parametrize("p,axis,max_norm", [(2.0, 0, 1.0), (1.0, 1, 2.0), (3.0, -1, 0.5)])
def test_renorm(p, axis, max_norm):
    a = rand((3, 4, 2), "float64")
    got = check_grad(lambda x: skiff.renorm(x, p, axis, max_norm),
                     lambda x: torch.renorm(x, p, axis % 3, max_norm), a)
    np.testing.assert_allclose(got.numpy(),  # Paddle's p and max_norm are float32
                               paddle.renorm(paddle.to_tensor(a), p, axis, max_norm).numpy(),
                               rtol=1e-6)
    x = skiff.to_tensor(a.copy())
    assert skiff.renorm_(x, p, axis, max_norm) is x
    np.testing.assert_allclose(x.numpy(), got.numpy())
    with pytest.raises(ValueError, match="renorm: axis 3"):
        skiff.renorm(x, p, 3, max_norm)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, 0.5, float("inf")])
def test_pdist_values_and_gradients_vs_torch(p):
    x = rand((5, 4), seed=3)
    x[3] = x[1]  # two equal rows: distance 0, gradient 0 (not NaN)
    ours = skiff.pdist(skiff.to_tensor(x), p)
    np.testing.assert_allclose(ours.numpy(), paddle.pdist(paddle.to_tensor(x), p).numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.numpy(), torch.pdist(torch.tensor(x), p).numpy(),
                               rtol=1e-5, atol=1e-6)
    if p == 0.0:
        return  # piecewise constant
    t = skiff.to_tensor(x, stop_gradient=False)
    skiff.nn.functional.pdist(t, p).sum().backward()
    ref = torch.tensor(x, requires_grad=True)
    torch.pdist(ref, p).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_pdist_shapes_and_errors():
    assert skiff.pdist(skiff.ones([1, 3])).shape == [0]
    assert skiff.pdist(skiff.ones([4, 3], "float64")).dtype == skiff.float64
    with pytest.raises(ValueError, match="pdist: x must be 2-D"):
        skiff.pdist(skiff.ones([2, 3, 4]))
    with pytest.raises(ValueError, match="pdist: p must be >= 0"):
        skiff.pdist(skiff.ones([3, 3]), -1.0)
