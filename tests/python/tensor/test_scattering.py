"""Writing into tensors at indices (skiff/tensor/scattering.py): put_along_axis,
scatter_add, scatter_, index_add, index_fill, masked_fill_, argwhere, scatter_nd(_add),
masked_scatter, diagonal_scatter, select_scatter, slice_scatter and index_put (with their
in-place forms): values vs paddle, gradients vs torch, errors."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand

X = rand((3, 4), "float64")


@pytest.mark.parametrize("reduce", ["assign", "add", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("axis,index", [(1, [[0, 1, 1, 3]]), (0, [[0, 1, 1, 2]]),
                                        (1, [[3], [0], [-1]])])
def test_put_along_axis_matches_paddle(reduce, include_self, axis, index):
    if reduce == "assign" and not include_self:
        pytest.skip("include_self applies to reductions only")
    idx = np.array(index)
    vals = rand(idx.shape, "float64", 3)
    got = skiff.put_along_axis(skiff.to_tensor(X), skiff.to_tensor(idx), skiff.to_tensor(vals),
                               axis, reduce, include_self)
    # paddle wants nonnegative indices; the negative one names the last entry
    pidx = np.where(idx < 0, idx + X.shape[axis], idx)
    want = paddle.put_along_axis(paddle.to_tensor(X), paddle.to_tensor(pidx),
                                 paddle.to_tensor(vals), axis, reduce, include_self)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_put_along_axis_scalar_value_and_broadcast_false():
    x = skiff.to_tensor(X.copy())
    got = skiff.put_along_axis(x, skiff.to_tensor([[0, 2]]), 7.0, 1)
    want = X.copy()
    want[:, [0, 2]] = 7.0
    np.testing.assert_array_equal(got.numpy(), want)
    got = skiff.put_along_axis(x, skiff.to_tensor([[1, 2]]), skiff.to_tensor([[5.0, 6.0]]), 1,
                               broadcast=False)
    want = X.copy()
    want[0, 1:3] = [5, 6]
    np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match="reduce must be 'assign'.*got 'median'"):
        skiff.put_along_axis(x, skiff.to_tensor([[0]]), 1.0, 1, "median")
    with pytest.raises(skiff.Error, match="rank"):
        skiff.put_along_axis(x, skiff.to_tensor([0]), 1.0, 1)


def test_scatter_add_gradients_match_torch():
    idx = torch.tensor([[0, 2, 2], [1, 1, 0]])
    src = rand((2, 3), "float64", 4)
    check_grad(lambda x, s: skiff.scatter_add(x, 1, skiff.to_tensor(idx.numpy()), s),
               lambda x, s: torch.scatter_add(x, 1, idx, s), X, src)
    # a src larger than index: only its corner is read
    big = rand((3, 4), "float64", 5)
    got = skiff.scatter_add(skiff.to_tensor(X), 1, skiff.to_tensor(idx.numpy()),
                            skiff.to_tensor(big))
    want = torch.scatter_add(torch.tensor(X), 1, idx, torch.tensor(big))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_put_along_axis_assign_gradient_matches_torch():
    idx = torch.tensor([[1, 3], [0, 2], [2, 1]])
    check_grad(lambda x, s: skiff.put_along_axis(x, skiff.to_tensor(idx.numpy()), s, 1,
                                                 broadcast=False),
               lambda x, s: torch.scatter(x, 1, idx, s), X, rand((3, 2), "float64", 6))


def test_in_place_scatters():
    idx = np.array([[0, 2, 2]])
    x = skiff.to_tensor(X.copy())
    assert skiff.scatter_add_(x, 1, skiff.to_tensor(idx), skiff.ones([1, 3], "float64")) is x
    want = X.copy()
    want[0, 0] += 1
    want[0, 2] += 2
    np.testing.assert_allclose(x.numpy(), want)
    y = skiff.to_tensor(X.copy())
    y.scatter_(skiff.to_tensor([2, 0]), skiff.zeros([2, 4], "float64"))
    want = X.copy()
    want[[2, 0]] = 0
    np.testing.assert_array_equal(y.numpy(), want)
    z = skiff.to_tensor(X.copy())
    skiff.scatter_(z, 1, skiff.to_tensor([[3]]), skiff.to_tensor([[9.0]]))
    assert z.numpy()[0, 3] == 9.0 and z.numpy()[1, 3] == X[1, 3]


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_index_add_matches_torch(axis):
    idx = [0, 2, 0]
    vshape = list(X.shape)
    vshape[axis] = 3
    v = rand(vshape, "float64", 7)
    check_grad(lambda x, t: skiff.index_add(x, skiff.to_tensor(idx), axis, t, alpha=2),
               lambda x, t: torch.index_add(x, axis, torch.tensor(idx), t, alpha=2), X, v)
    x = skiff.to_tensor(X.copy())
    assert skiff.index_add_(x, skiff.to_tensor(idx), axis, skiff.to_tensor(v)) is x
    want = torch.index_add(torch.tensor(X), axis, torch.tensor(idx), torch.tensor(v))
    np.testing.assert_allclose(x.numpy(), want.numpy(), rtol=1e-12)


def test_index_fill_and_masked_fill_():
    got = skiff.index_fill(skiff.to_tensor(X), skiff.to_tensor([0, -1]), 1, -5.0)
    want = paddle.index_fill(paddle.to_tensor(X), paddle.to_tensor([0, 3]), 1, -5.0)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    check_grad(lambda x: skiff.index_fill(x, skiff.to_tensor([1]), 0, 2.0),
               lambda x: torch.index_fill(x, 0, torch.tensor([1]), 2.0), X)
    x = skiff.to_tensor(X.copy())
    assert skiff.index_fill_(x, skiff.to_tensor([2]), 0, 0.5) is x
    assert (x.numpy()[2] == 0.5).all() and (x.numpy()[:2] == X[:2]).all()
    y = skiff.to_tensor(X.copy())
    y.masked_fill_(y > 0, 0.0)
    np.testing.assert_array_equal(y.numpy(), np.where(X > 0, 0, X))


def test_argwhere_and_take_along_dim():
    a = np.array([[0, 3, 0], [1, 0, 2]])
    np.testing.assert_array_equal(skiff.argwhere(skiff.to_tensor(a)).numpy(), np.argwhere(a))
    idx = np.array([[2, 0], [1, 1], [0, 3]])
    got = skiff.take_along_dim(skiff.to_tensor(X), skiff.to_tensor(idx), 1)
    np.testing.assert_array_equal(got.numpy(), np.take_along_axis(X, idx, 1))


def test_scatter_nd_and_add_match_paddle():
    idx = np.array([[1], [3], [1]])
    up = rand((3, 2), seed=1)
    got = skiff.scatter_nd(skiff.to_tensor(idx), skiff.to_tensor(up), [4, 2])
    want = paddle.scatter_nd(paddle.to_tensor(idx), paddle.to_tensor(up), [4, 2])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    x = rand((3, 4, 2), seed=2)
    idx2 = np.array([[[0, 1], [2, 3]], [[0, 1], [1, -1]]])
    up2 = rand((2, 2, 2), seed=3)
    got = skiff.scatter_nd_add(skiff.to_tensor(x), skiff.to_tensor(idx2), skiff.to_tensor(up2))
    want = paddle.scatter_nd_add(paddle.to_tensor(x), paddle.to_tensor(idx2),
                                 paddle.to_tensor(up2))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)

    def torch_add(t, u):
        flat = idx2.reshape(-1, 2) % np.array([3, 4])
        return t.index_put((torch.tensor(flat[:, 0]), torch.tensor(flat[:, 1])),
                           u.reshape(-1, 2), accumulate=True)

    check_grad(lambda t, u: skiff.scatter_nd_add(t, skiff.to_tensor(idx2), u), torch_add,
               x, up2)
    with pytest.raises(ValueError, match="scatter_nd_add: updates must be"):
        skiff.scatter_nd_add(skiff.to_tensor(x), skiff.to_tensor(idx2), skiff.ones([2, 2]))


@pytest.mark.parametrize("mask_shape", [(2, 3), (3,), (2, 1)])
def test_masked_scatter_matches_paddle_and_torch(mask_shape):
    rng = np.random.default_rng(4)
    x = rand((2, 3), seed=1)
    mask = rng.random(mask_shape) > 0.4
    value = rand((7,), seed=2)
    got = check_grad(lambda t, v: skiff.masked_scatter(t, skiff.to_tensor(mask), v),
                     lambda t, v: t.masked_scatter(torch.tensor(mask), v), x, value)
    want = paddle.masked_scatter(paddle.to_tensor(x), paddle.to_tensor(mask),
                                 paddle.to_tensor(value))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    t = skiff.to_tensor(x.copy())
    assert skiff.masked_scatter_(t, skiff.to_tensor(mask), skiff.to_tensor(value)) is t
    np.testing.assert_array_equal(t.numpy(), got.numpy())


def test_masked_scatter_errors():
    with pytest.raises(TypeError, match="masked_scatter: mask must be a bool"):
        skiff.masked_scatter(skiff.ones([2]), skiff.ones([2]), skiff.ones([2]))
    with pytest.raises(TypeError, match="masked_scatter: value"):
        skiff.masked_scatter(skiff.ones([2]), skiff.to_tensor([True, False]),
                             skiff.to_tensor([1, 2]))
    with pytest.raises(ValueError, match="masked_scatter_: mask"):
        skiff.masked_scatter_(skiff.ones([3]), skiff.to_tensor([[True], [False]]),
                              skiff.ones([6]))


@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, 1, 2), (-1, 2, 0), (2, -1, -2)])
def test_diagonal_scatter(offset, axis1, axis2):
    x = rand((3, 4, 5), seed=1)
    y_shape = torch.diagonal(torch.tensor(x), offset, axis1, axis2).shape
    y = rand(tuple(y_shape), seed=2)
    got = check_grad(lambda a, b: skiff.diagonal_scatter(a, b, offset, axis1, axis2),
                     lambda a, b: torch.diagonal_scatter(a, b, offset, axis1, axis2), x, y)
    want = paddle.diagonal_scatter(paddle.to_tensor(x), paddle.to_tensor(y), offset, axis1,
                                   axis2)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match="diagonal_scatter: y must have"):
        skiff.diagonal_scatter(skiff.to_tensor(x), skiff.ones([2]), offset, axis1, axis2)


def test_select_and_slice_scatter():
    x = rand((3, 4, 5), seed=1)
    for axis, index in [(0, 1), (1, -1), (2, 0)]:
        shape = list(x.shape)
        del shape[axis]
        v = rand(tuple(shape), seed=2)
        got = check_grad(lambda a, b: skiff.select_scatter(a, b, axis, index),
                         lambda a, b: torch.select_scatter(a, b, axis, index), x, v)
        want = paddle.select_scatter(paddle.to_tensor(x), paddle.to_tensor(v), axis, index)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match="select_scatter: index 4"):
        skiff.select_scatter(skiff.to_tensor(x), skiff.ones([3, 5]), 1, 4)
    v = rand((3, 2, 2), seed=3)
    got = check_grad(lambda a, b: skiff.slice_scatter(a, b, [1, 2], [0, 1], [4, 5], [2, 3]),
                     _torch_slice_scatter, x, v)
    want = paddle.slice_scatter(paddle.to_tensor(x), paddle.to_tensor(v), [1, 2], [0, 1],
                                [4, 5], [2, 3])
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match="slice_scatter: strides must be non-zero"):
        skiff.slice_scatter(skiff.to_tensor(x), skiff.to_tensor(v), [1], [0], [4], [0])


def _torch_slice_scatter(a, b):
    out = a.clone()
    out[:, 0:4:2, 1:5:3] = b
    return out


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_torch_and_paddle(accumulate):
    x = rand((3, 4, 2), seed=1)
    i0, i1 = np.array([0, 2, -1]), np.array([1, 3, 1])
    if accumulate:
        i0, i1 = np.array([0, 2, 0]), np.array([1, 3, 1])  # a repeated place adds up
    v = rand((3, 2), seed=2)
    got = check_grad(
        lambda a, b: skiff.index_put(a, (skiff.to_tensor(i0), skiff.to_tensor(i1)), b,
                                     accumulate),
        lambda a, b: a.index_put((torch.tensor(i0), torch.tensor(i1)), b, accumulate), x, v)
    want = paddle.index_put(paddle.to_tensor(x), (paddle.to_tensor(i0), paddle.to_tensor(i1)),
                            paddle.to_tensor(v), accumulate)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    t = skiff.to_tensor(x.copy())
    skiff.index_put_(t, (skiff.to_tensor(i0), skiff.to_tensor(i1)), skiff.to_tensor(v),
                     accumulate)
    np.testing.assert_allclose(t.numpy(), got.numpy())


def test_index_put_masks_broadcasting_and_errors():
    x = rand((3, 3))
    mask = np.array([[True, False, True], [False, False, False], [True, True, False]])
    for indices, value in [((mask,), np.float32(5.0)), ((mask[0],), rand((3,), seed=3)),
                           ((np.array([[0], [2]]), np.array([1, 2])), rand((2, 2), seed=4))]:
        got = skiff.index_put(skiff.to_tensor(x), tuple(skiff.to_tensor(i) for i in indices),
                              skiff.to_tensor(value))
        want = paddle.index_put(paddle.to_tensor(x),
                                tuple(paddle.to_tensor(i) for i in indices),
                                paddle.to_tensor(value))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(TypeError, match="index_put: indices must be a tuple"):
        skiff.index_put(skiff.to_tensor(x), skiff.to_tensor([0]), skiff.ones([3]))
    with pytest.raises(ValueError, match="index_put: value"):
        skiff.index_put(skiff.to_tensor(x), (skiff.to_tensor([0, 1]),), skiff.ones([2, 2]))
    with pytest.raises(TypeError, match=r"index_put: indices\[0\]"):
        skiff.index_put(skiff.to_tensor(x), (skiff.ones([2]),), skiff.ones([3]))


@pytest.mark.parametrize("reduce", ["add", "mul", "multiply", "mean", "amin", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_reductions_values_and_grads_match_paddle(reduce, include_self):
    import paddle
    rng = np.random.RandomState(3)
    x0 = rng.rand(3, 4) + 0.5
    v0 = rng.rand(2, 4) + 0.5
    idx = np.array([[0, 2, 2, 1], [0, 2, 1, 1]])
    results = []
    for lib in (skiff, paddle):
        x = lib.to_tensor(x0, stop_gradient=False)
        v = lib.to_tensor(v0, stop_gradient=False)
        out = lib.put_along_axis(x, lib.to_tensor(idx), v, 0, reduce, include_self, False)
        (out * lib.to_tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((out.numpy(), x.grad.numpy(), v.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-9)


def test_scatter_reduce_is_torch_style_and_checks_its_arguments():
    import paddle
    x = np.array([[10, 20, 30], [40, 50, 60]])
    index = np.zeros((2, 3), "int32")
    src = np.array([[1, 2, 3], [4, 5, 6]])
    for reduce in ("sum", "prod", "mean", "amin", "amax"):
        for include_self in (True, False):
            ours = skiff.scatter_reduce(skiff.to_tensor(x), 0, skiff.to_tensor(index),
                                        skiff.to_tensor(src), reduce, include_self=include_self)
            theirs = paddle.scatter_reduce(paddle.to_tensor(x), 0, paddle.to_tensor(index),
                                           paddle.to_tensor(src), reduce,
                                           include_self=include_self)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(ValueError, match="got 'max'"):
        skiff.scatter_reduce(skiff.to_tensor(x), 0, skiff.to_tensor(index), skiff.to_tensor(src),
                             "max")
