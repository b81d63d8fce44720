"""Tensor products (skiff/tensor/products.py): kron, inner, ger, vecdot, tensordot, addmm,
baddbmm (and their in-place forms), cross, cartesian_prod and combinations: values vs
paddle/torch, gradients vs torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


@pytest.mark.parametrize("xs,ys", [((2, 3), (3, 2)), ((2,), (3, 4)), ((2, 2, 1), (3, 2))])
def test_kron_matches_torch(xs, ys):
    check_grad(skiff.kron, torch.kron, rand(xs, "float64", 1), rand(ys, "float64", 2))


def test_inner_ger_vecdot_match_torch():
    check_grad(skiff.inner, torch.inner, rand((2, 3, 4), "float64", 1), rand((5, 4), "float64"))
    check_grad(skiff.inner, torch.inner, rand((4,), "float64", 1), rand((4,), "float64", 2))
    check_grad(skiff.ger, torch.outer, rand((3,), "float64", 1), rand((4,), "float64", 2))
    check_grad(lambda x, y: skiff.vecdot(x, y, axis=0),
               lambda x, y: torch.linalg.vecdot(x, y, dim=0),
               rand((3, 4), "float64", 1), rand((3, 1), "float64", 2))
    with pytest.raises(skiff.Error, match="inner"):
        skiff.inner(skiff.ones([2, 3]), skiff.ones([2]))


@pytest.mark.parametrize("axes", [2, 0, 1, [[0, 1], [1, 0]], [[2], [0]], [1]])
def test_tensordot_matches_paddle_and_torch(axes):
    a, b = rand((3, 3, 3), "float64", 1), rand((3, 3, 2), "float64", 2)
    got = skiff.tensordot(skiff.to_tensor(a), skiff.to_tensor(b), axes)
    want = paddle.tensordot(paddle.to_tensor(a), paddle.to_tensor(b), axes)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    if isinstance(axes, int):
        check_grad(lambda x, y: skiff.tensordot(x, y, axes),
                   lambda x, y: torch.tensordot(x, y, axes), a, b)
    with pytest.raises(skiff.Error, match="tensordot"):
        skiff.tensordot(skiff.to_tensor(a), skiff.to_tensor(b), [[0], [2]])


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


def test_cartesian_prod_with_an_empty_factor_is_empty():
    out = skiff.cartesian_prod([skiff.empty([0], dtype="float64"), skiff.to_tensor([1.0, 2.0])])
    assert out.shape == [0, 2] and out.dtype == skiff.float64
