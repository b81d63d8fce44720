"""Searching and sorting (skiff/tensor/search.py): argmax/argmin, topk, sort/argsort,
where, nonzero, masked_select (values vs numpy/torch, gradients of the differentiable ones);
searchsorted, bucketize, msort, mode, kthvalue and multiplex against PaddlePaddle 3.3 and
torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_argmax_argmin(dtype):
    a = (rand((3, 4, 5), "float64", 1) * 10).astype(dtype)
    x = skiff.to_tensor(a)
    assert skiff.argmax(x).shape == [] and skiff.argmax(x).item() == a.argmax()
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), a.argmax(1))
    np.testing.assert_array_equal(x.argmin(axis=-1, keepdim=True).numpy(),
                                  a.argmin(-1)[..., None])
    assert skiff.argmax(x, axis=0, dtype="int32").dtype == "int32"
    assert skiff.argmax(x, keepdim=True).shape == [1, 1, 1]


def test_topk_values_indices_and_grad():
    a = rand((4, 6), "float64", 2)
    vals, idx = skiff.topk(skiff.to_tensor(a), 3)
    tv, ti = torch.topk(torch.tensor(a), 3)
    np.testing.assert_array_equal(vals.numpy(), tv.numpy())
    np.testing.assert_array_equal(idx.numpy(), ti.numpy())
    vals, idx = skiff.to_tensor(a).topk(2, axis=0, largest=False)
    tv, ti = torch.topk(torch.tensor(a), 2, dim=0, largest=False)
    np.testing.assert_array_equal(idx.numpy(), ti.numpy())
    check_grad(lambda x: skiff.topk(x, 2, axis=0)[0], lambda t: torch.topk(t, 2, dim=0)[0], a)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(descending):
    a = np.array([[3.0, 1.0, 2.0, 1.0], [0.5, np.nan, -1.0, 7.0]])
    x = skiff.to_tensor(a)
    got = skiff.sort(x, axis=1, descending=descending).numpy()
    want = -np.sort(-a, 1) if descending else np.sort(a, 1)
    if not descending:
        np.testing.assert_array_equal(got, want)  # NaN last, as numpy
    np.testing.assert_array_equal(got[0], want[0])
    order = skiff.argsort(x[0], descending=descending).numpy()
    assert order.tolist() == ([0, 2, 1, 3] if descending else [1, 3, 2, 0])  # stable
    b = rand((3, 5), "float64", 3)
    check_grad(lambda t: skiff.sort(t, axis=0, descending=descending),
               lambda t: torch.sort(t, dim=0, descending=descending)[0], b)
    ints = skiff.to_tensor([3, 1, 2])
    assert skiff.sort(ints).tolist() == [1, 2, 3] and ints.argsort().tolist() == [1, 2, 0]


def test_where_three_arguments_and_grads():
    c = rand((3, 4), seed=4) > 0
    a, b = rand((3, 4), "float64", 5), rand((4,), "float64", 6)
    cond = skiff.to_tensor(c)
    check_grad(lambda x, y: skiff.where(cond, x, y), lambda x, y: torch.where(torch.tensor(c), x, y),
               a, b)
    got = skiff.where(cond, skiff.to_tensor(a), 0.0)
    np.testing.assert_array_equal(got.numpy(), np.where(c, a, 0.0))
    got = skiff.where(cond, 1, skiff.to_tensor(np.zeros((3, 4), "int64")))
    assert got.dtype == "int64"
    np.testing.assert_array_equal(got.numpy(), c.astype("int64"))


def test_nonzero_and_masked_select():
    a = np.array([[0, 3, 0], [4, 0, 5]])
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(skiff.nonzero(x).numpy(), np.argwhere(a))
    rows, cols = skiff.nonzero(x, as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    rows, cols = skiff.where(x > 0)
    assert cols.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(skiff.masked_select(x, x > 3).numpy(), a[a > 3])
    b = rand((2, 3), "float64", 7)
    mask = skiff.to_tensor(np.array([True, False, True]))
    check_grad(lambda t: skiff.masked_select(t, mask),
               lambda t: torch.masked_select(t, torch.tensor([True, False, True])), b)


def _both(fn, *arrays, **kwargs):
    got = getattr(skiff, fn)(*[skiff.to_tensor(a) for a in arrays], **kwargs)
    want = getattr(paddle, fn)(*[paddle.to_tensor(a) for a in arrays], **kwargs)
    return got, want


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_searchsorted_matches_paddle(right, dtype):
    seq = np.array([[1, 3, 3, 5, 9], [2, 2, 6, 8, 10]], dtype)
    vals = np.array([[3, 0, 9, 11], [2, 7, 10, 1]], dtype)
    for s, v in [(seq, vals), (seq[0], vals), (seq[1], vals[0, :2])]:
        got, want = _both("searchsorted", s, v, right=right)
        assert got.dtype.name == "int64"
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = skiff.searchsorted(skiff.to_tensor(seq), skiff.to_tensor(vals), out_int32=True,
                             side="right" if right else "left")
    want = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right)
    assert got.dtype.name == "int32"
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_searchsorted_sorter_and_errors():
    raw = np.array([5.0, 1.0, 3.0], "float32")
    sorter = np.argsort(raw)
    got = skiff.searchsorted(skiff.to_tensor(raw), skiff.to_tensor([2.0, 5.0]),
                             sorter=skiff.to_tensor(sorter))
    np.testing.assert_array_equal(got.numpy(), [1, 2])
    with pytest.raises(ValueError, match="searchsorted: sorted_sequence"):
        skiff.searchsorted(skiff.ones([2, 3]), skiff.ones([3, 3]))
    with pytest.raises(ValueError, match="searchsorted: side"):
        skiff.searchsorted(skiff.ones([3]), skiff.ones([2]), side="middle")


def test_bucketize_and_msort():
    x = rand((3, 4))
    edges = np.array([-1.0, 0.0, 0.5, 1.5], "float32")
    for right in (False, True):
        got, want = _both("bucketize", x, edges, right=right)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ValueError, match="bucketize: sorted_sequence must be 1-D"):
        skiff.bucketize(skiff.to_tensor(x), skiff.to_tensor(x))
    got = check_grad(skiff.msort, lambda t: torch.msort(t), x)
    np.testing.assert_array_equal(got.numpy(), paddle.msort(paddle.to_tensor(x)).numpy())


@pytest.mark.parametrize("axis,keepdim", [(-1, False), (0, True), (1, False)])
def test_mode_matches_paddle(axis, keepdim):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(3, 7, 5)).astype("float32")
    (v, i), (pv, pi) = _both("mode", x, axis=axis, keepdim=keepdim)
    np.testing.assert_array_equal(v.numpy(), pv.numpy())
    np.testing.assert_array_equal(i.numpy(), pi.numpy())
    ints = x.astype("int64")
    (v, i), (pv, pi) = _both("mode", ints, axis=axis, keepdim=keepdim)
    np.testing.assert_array_equal(v.numpy(), pv.numpy())
    np.testing.assert_array_equal(i.numpy(), pi.numpy())


def test_mode_gradient_goes_to_the_reported_index():
    x = np.array([[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 0.0, 1.0]], "float32")
    t = skiff.to_tensor(x, stop_gradient=False)
    values, idx = skiff.mode(t)
    values.sum().backward()
    want = np.zeros_like(x)
    want[np.arange(2), idx.numpy()] = 1
    np.testing.assert_array_equal(t.grad.numpy(), want)
    with pytest.raises(ValueError, match="mode: axis 2"):
        skiff.mode(t, axis=2)


@pytest.mark.parametrize("k,axis,keepdim", [(1, None, False), (3, 0, True), (2, 1, False),
                                            (4, -1, True)])
def test_kthvalue_matches_torch_and_paddle(k, axis, keepdim):
    x = rand((4, 5, 4), seed=2)
    dim = -1 if axis is None else axis
    check_grad(lambda t: skiff.kthvalue(t, k, axis, keepdim)[0],
               lambda t: torch.kthvalue(t, k, dim, keepdim)[0], x)
    v, i = skiff.kthvalue(skiff.to_tensor(x), k, axis, keepdim)
    pv, pi = paddle.kthvalue(paddle.to_tensor(x), k, axis, keepdim)
    np.testing.assert_array_equal(v.numpy(), pv.numpy())
    np.testing.assert_array_equal(i.numpy(), pi.numpy())
    x[0, 0, :2] = x[0, 0, 2]  # ties: skiff ranks them by position (Paddle's order varies)
    x[1, :3, 0] = x[1, 3, 0]
    v, i = skiff.kthvalue(skiff.to_tensor(x), k, axis, True)
    pv = paddle.kthvalue(paddle.to_tensor(x), k, dim, True)[0]
    np.testing.assert_array_equal(v.numpy(), pv.numpy())
    np.testing.assert_array_equal(np.take_along_axis(x, i.numpy(), dim), v.numpy())
    with pytest.raises(ValueError, match="kthvalue: k must be in"):
        skiff.kthvalue(skiff.to_tensor(x), 6, 1)


def test_multiplex_matches_paddle_with_gradients():
    a, b, c = rand((4, 3), seed=1), rand((4, 3), seed=2), rand((4, 3), seed=3)
    idx = np.array([[2], [0], [1], [2]], "int32")
    got = skiff.multiplex([skiff.to_tensor(t) for t in (a, b, c)], skiff.to_tensor(idx))
    want = paddle.multiplex([paddle.to_tensor(t) for t in (a, b, c)], paddle.to_tensor(idx))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    rows = torch.arange(4)
    check_grad(lambda x, y, z: skiff.multiplex([x, y, z], skiff.to_tensor(idx)),
               lambda x, y, z: torch.stack([x, y, z])[torch.tensor(idx[:, 0]).long(), rows],
               a, b, c)
    with pytest.raises(ValueError, match=r"multiplex: index must be \[4, 1\]"):
        skiff.multiplex([skiff.to_tensor(a), skiff.to_tensor(b)], skiff.to_tensor(idx[:2]))


def test_searchsorted_compares_mixed_dtypes_in_the_wider_one():
    seq = skiff.to_tensor([1, 3, 5, 7, 9, 11, 13])
    values = skiff.to_tensor([[3, 6], [9, 10]], dtype="int32")
    np.testing.assert_array_equal(skiff.searchsorted(seq, values).numpy(), [[1, 3], [4, 5]])
    floats = skiff.to_tensor([2.5, 13.0])
    np.testing.assert_array_equal(skiff.searchsorted(seq, floats, right=True).numpy(), [1, 7])


def test_argwhere_as_paddle():
    for data in ([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]], [[True, False]],
                 np.zeros((2, 3), "int32"), [0, 5, 0, 7]):
        ours = skiff.tensor.search.argwhere(skiff.to_tensor(data))
        theirs = paddle.argwhere(paddle.to_tensor(data))
        assert ours.dtype == skiff.int64 and list(ours.shape) == list(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(ValueError, match="argwhere: input must have at least 1 dim"):
        skiff.argwhere(skiff.to_tensor(3.0))
