"""searchsorted, bucketize, msort, mode, kthvalue, bincount, histogram and
histogram_bin_edges against PaddlePaddle 3.3 and torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand


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
    with pytest.raises(TypeError, match="searchsorted: sorted_sequence"):
        skiff.searchsorted(skiff.ones([3]), skiff.to_tensor([1, 2]))
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


def test_bincount_matches_paddle():
    x = np.array([1, 2, 1, 4, 0, 4, 4])
    for kwargs in [{}, {"minlength": 9}, {"minlength": 2}]:
        got, want = _both("bincount", x, **kwargs)
        assert got.dtype.name == "int64"
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for w in (rand((7,), "float32"), rand((7,), "float64"), np.arange(7)):
        got = skiff.bincount(skiff.to_tensor(x), skiff.to_tensor(w), 3)
        want = paddle.bincount(paddle.to_tensor(x), paddle.to_tensor(w), 3)
        assert got.dtype.name == str(want.dtype).replace("paddle.", "")
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    got = skiff.bincount(skiff.to_tensor(np.zeros([0], "int64")), minlength=3)
    np.testing.assert_array_equal(got.numpy(), [0, 0, 0])


def test_bincount_errors_and_weight_gradient():
    with pytest.raises(ValueError, match="bincount: x must hold non-negative"):
        skiff.bincount(skiff.to_tensor([1, -1]))
    with pytest.raises(TypeError, match="bincount: x must be an int32 or int64"):
        skiff.bincount(skiff.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="bincount: weights must have"):
        skiff.bincount(skiff.to_tensor([1, 2]), skiff.ones([3]))
    x = np.array([3, 0, 3, 1])
    w = skiff.to_tensor(rand((4,), "float64"), stop_gradient=False)
    out = skiff.bincount(skiff.to_tensor(x), w)
    np.testing.assert_allclose(out.numpy(), np.bincount(x, w.numpy()))
    seed = rand((4,), "float64", seed=5)
    (out * skiff.to_tensor(seed)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), seed[x])  # d out[x[j]] / d w[j] = 1


@pytest.mark.parametrize("bins,lo,hi", [(4, 0.0, 0.0), (3, -1.0, 1.0), (5, 0.5, 0.5),
                                        (1, -2.0, 2.0)])
def test_histogram_matches_paddle(bins, lo, hi):
    x = rand((4, 5), seed=3)
    x[0, 0] = 1.0 if hi == 1.0 else x[0, 0]  # the top edge is in the last bin
    got, want = _both("histogram", x, bins, lo, hi)
    assert got.dtype.name == "int64"
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    w = rand((4, 5), seed=4, lo=0, hi=1)
    for density in (False, True):
        got, want = _both("histogram", x, bins, lo, hi, density=density)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
        got = skiff.histogram(skiff.to_tensor(x), bins, lo, hi, skiff.to_tensor(w), density)
        want = paddle.histogram(paddle.to_tensor(x), bins, lo, hi, paddle.to_tensor(w),
                                density)
        assert got.dtype.name == "float32"
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)
    edges, pedges = _both("histogram_bin_edges", x, bins, lo, hi)
    assert edges.dtype.name == "float32"
    np.testing.assert_allclose(edges.numpy(), pedges.numpy(), rtol=1e-6, atol=1e-7)


def test_histogram_integer_equal_and_errors():
    ints = np.arange(1, 11)
    got, want = _both("histogram", ints, 3, 2, 8)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    same = np.array([2.0, 2.0], "float32")
    for density in (False, True):
        got, want = _both("histogram", same, 4, density=density)
        np.testing.assert_allclose(got.numpy(), want.numpy())
    got, want = _both("histogram_bin_edges", same, 4)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    got = skiff.histogram(skiff.to_tensor(ints), 4)
    np.testing.assert_array_equal(got.numpy(), np.histogram(ints, 4)[0])
    with pytest.raises(ValueError, match="histogram: max must be >= min"):
        skiff.histogram(skiff.to_tensor(same), 3, 5.0, 1.0)
    with pytest.raises(ValueError, match="histogram: bins must be >= 1"):
        skiff.histogram(skiff.to_tensor(same), 0)
    with pytest.raises(ValueError, match="histogram: weight must have"):
        skiff.histogram(skiff.to_tensor(same), 2, weight=skiff.ones([3]))
