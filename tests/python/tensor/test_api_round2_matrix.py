"""addmm, baddbmm, cross, rot90, diag_embed, diagflat, block_diag, vander, trapezoid,
cumulative_trapezoid, renorm, cartesian_prod and combinations against PaddlePaddle 3.3
and torch (values and gradients)."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand


def test_addmm_and_in_place():
    inp, x, y = rand((3,), "float64", 1), rand((2, 4), "float64", 2), rand((4, 3), "float64", 3)
    check_grad(lambda i, a, b: skiff.addmm(i, a, b, beta=0.5, alpha=2.0),
               lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0), inp, x, y)
    got = skiff.addmm(skiff.to_tensor(inp), skiff.to_tensor(x), skiff.to_tensor(y), 0.3, -1.5)
    want = paddle.addmm(paddle.to_tensor(inp), paddle.to_tensor(x), paddle.to_tensor(y), 0.3,
                        -1.5)
    # Paddle keeps beta and alpha as float32 attributes
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    full = skiff.to_tensor(rand((2, 3), "float64", 4))
    expect = skiff.addmm(full, skiff.to_tensor(x), skiff.to_tensor(y)).numpy()
    assert skiff.addmm_(full, skiff.to_tensor(x), skiff.to_tensor(y)) is full
    np.testing.assert_allclose(full.numpy(), expect)
    with pytest.raises(ValueError, match="addmm: x and y must be 2-D"):
        skiff.addmm(skiff.to_tensor(inp), skiff.to_tensor(x[0]), skiff.to_tensor(y))
    with pytest.raises(ValueError, match="addmm: input"):
        skiff.addmm(skiff.ones([4]), skiff.to_tensor(x), skiff.to_tensor(y))


def test_baddbmm_and_in_place():
    inp, x, y = rand((2, 1, 3), "float64", 1), rand((2, 2, 4), "float64", 2), \
        rand((2, 4, 3), "float64", 3)
    check_grad(lambda i, a, b: skiff.baddbmm(i, a, b, beta=2.0, alpha=0.5),
               lambda i, a, b: torch.baddbmm(i, a, b, beta=2.0, alpha=0.5), inp, x, y)
    full = skiff.to_tensor(rand((2, 2, 3), "float64", 4))
    expect = torch.baddbmm(torch.tensor(full.numpy()), torch.tensor(x), torch.tensor(y))
    skiff.baddbmm_(full, skiff.to_tensor(x), skiff.to_tensor(y))
    np.testing.assert_allclose(full.numpy(), expect.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="baddbmm: x and y must be 3-D"):
        skiff.baddbmm(full, skiff.to_tensor(x[0]), skiff.to_tensor(y[0]))


def test_cross_default_axis_and_gradients():
    a, b = rand((4, 3, 3), seed=1), rand((4, 3, 3), seed=2)
    got = skiff.cross(skiff.to_tensor(a), skiff.to_tensor(b))  # first dim of size 3: 1
    want = paddle.cross(paddle.to_tensor(a), paddle.to_tensor(b))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    check_grad(lambda x, y: skiff.cross(x, y, axis=-1),
               lambda x, y: torch.linalg.cross(x, y, dim=-1), a, b)
    with pytest.raises(ValueError, match="cross: no dim"):
        skiff.cross(skiff.ones([2, 4]), skiff.ones([2, 4]))
    with pytest.raises(ValueError, match="cross: axis 1"):
        skiff.cross(skiff.ones([3, 2]), skiff.ones([3, 2]), axis=1)


@pytest.mark.parametrize("k,axes", [(1, [0, 1]), (-1, [1, 2]), (2, [2, 0]), (3, [0, 2]),
                                    (4, [0, 1])])
def test_rot90(k, axes):
    a = rand((2, 3, 4))
    got = check_grad(lambda x: skiff.rot90(x, k, axes), lambda x: torch.rot90(x, k, axes), a)
    np.testing.assert_array_equal(got.numpy(),
                                  paddle.rot90(paddle.to_tensor(a), k, axes).numpy())


def test_rot90_errors():
    with pytest.raises(ValueError, match="rot90: axes"):
        skiff.rot90(skiff.ones([2, 2]), 1, [0, 0])
    with pytest.raises(ValueError, match="rot90: x must have at least 2 dims"):
        skiff.rot90(skiff.ones([2]))


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


def test_trapezoid_and_cumulative():
    y = rand((3, 5), "float64", 1)
    xs = np.sort(rand((5,), "float64", 2))
    xfull = np.sort(rand((3, 5), "float64", 3), axis=1)
    check_grad(lambda t: skiff.trapezoid(t), lambda t: torch.trapezoid(t), y)
    check_grad(lambda t: skiff.trapezoid(t, dx=0.5, axis=0),
               lambda t: torch.trapezoid(t, dx=0.5, dim=0), y)
    check_grad(lambda t, x: skiff.trapezoid(t, x), lambda t, x: torch.trapezoid(t, x), y, xs)
    check_grad(lambda t, x: skiff.cumulative_trapezoid(t, x),
               lambda t, x: torch.cumulative_trapezoid(t, x), y, xfull)
    check_grad(lambda t: skiff.cumulative_trapezoid(t, dx=2.0, axis=0),
               lambda t: torch.cumulative_trapezoid(t, dx=2.0, dim=0), y)
    got = skiff.cumulative_trapezoid(skiff.to_tensor(y), skiff.to_tensor(xs))
    want = paddle.cumulative_trapezoid(paddle.to_tensor(y), paddle.to_tensor(xs))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="trapezoid: give x or dx"):
        skiff.trapezoid(skiff.to_tensor(y), skiff.to_tensor(xs), 1.0)
    with pytest.raises(TypeError, match="trapezoid: y must be a float"):
        skiff.trapezoid(skiff.to_tensor([1, 2]))


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


def test_cartesian_prod_and_combinations():
    a, b, c = np.array([1, 2]), np.array([3, 4, 5]), np.array([6])
    got = skiff.cartesian_prod([skiff.to_tensor(t) for t in (a, b, c)])
    want = paddle.cartesian_prod([paddle.to_tensor(t) for t in (a, b, c)])
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    check_grad(lambda x, y: skiff.cartesian_prod([x, y]),
               lambda x, y: torch.cartesian_prod(x, y), rand((2,), seed=1), rand((3,), seed=2))
    with pytest.raises(ValueError, match="cartesian_prod: x must be"):
        skiff.cartesian_prod([skiff.ones([2, 2])])
    v = np.array([4, 1, 3, 2])
    for r, rep in [(2, False), (3, False), (2, True), (5, False), (0, False)]:
        got = skiff.combinations(skiff.to_tensor(v), r, rep)
        want = paddle.combinations(paddle.to_tensor(v), r, rep)
        assert list(got.shape) == list(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    check_grad(lambda x: skiff.combinations(x, 2, True),
               lambda x: torch.combinations(x, 2, True), rand((4,)))
    with pytest.raises(ValueError, match="combinations: r must be"):
        skiff.combinations(skiff.to_tensor(v), -1)
