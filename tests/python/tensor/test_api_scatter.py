"""put_along_axis, scatter_add, scatter_, index_add, index_fill, masked_fill_, argwhere,
nan_to_num and diff: values vs paddle, gradients vs torch, in-place forms, errors."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand

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
    with pytest.raises(skiff.Error, match="reduce='amax'"):
        skiff.put_along_axis(x, skiff.to_tensor([[0]]), 1.0, 1, "amax")
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


def test_nan_to_num_matches_paddle():
    a = np.array([np.nan, np.inf, -np.inf, 1.5], "float32")
    for kw in [{}, dict(nan=1.0, posinf=9.0, neginf=-9.0)]:
        got = skiff.nan_to_num(skiff.to_tensor(a), **kw)
        want = paddle.nan_to_num(paddle.to_tensor(a), **kw)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = skiff.to_tensor(a.astype("float64"))
    x.nan_to_num_(nan=2.0)
    assert x.numpy()[0] == 2.0 and x.numpy()[1] == np.finfo("float64").max
    ints = skiff.to_tensor([1, 2])
    assert skiff.nan_to_num(ints).numpy().tolist() == [1, 2]
    check_grad(skiff.nan_to_num, torch.nan_to_num, rand((3,), "float64"))


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 1), (1, 0), (3, 1)])
def test_diff_matches_torch(n, axis):
    a = rand((3, 5), "float64")
    check_grad(lambda t: skiff.diff(t, n, axis), lambda t: torch.diff(t, n, axis), a)


def test_diff_prepend_append_and_bool():
    a = rand((2, 3), "float64")
    pre, app = rand((2, 1), "float64", 2), rand((2, 2), "float64", 3)
    got = skiff.diff(skiff.to_tensor(a), 1, 1, skiff.to_tensor(pre), skiff.to_tensor(app))
    np.testing.assert_allclose(got.numpy(), np.diff(a, 1, 1, prepend=pre, append=app))
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(skiff.diff(skiff.to_tensor(b)).numpy(), np.diff(b))
    with pytest.raises(skiff.Error, match="diff"):
        skiff.diff(skiff.to_tensor(1.0))
