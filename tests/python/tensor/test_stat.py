"""Statistics (skiff/tensor/stat.py): median (values and gradients vs torch), bincount,
histogram and histogram_bin_edges against PaddlePaddle 3.3 and torch."""
import numpy as np
import paddle
import pytest

import skiff

from tensor_reference import rand


def test_median():
    a = rand((3, 5), "float64", 14)
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a)).numpy(), np.median(a))
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a), axis=1).numpy(),
                               np.median(a, 1))
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a[:, :4]), axis=1,
                                            keepdim=True).numpy(),
                               np.median(a[:, :4], 1, keepdims=True))


def _both(fn, *arrays, **kwargs):
    got = getattr(skiff, fn)(*[skiff.to_tensor(a) for a in arrays], **kwargs)
    want = getattr(paddle, fn)(*[paddle.to_tensor(a) for a in arrays], **kwargs)
    return got, want


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


def _median_pair(fn):
    nan = float("nan")
    for data in (np.arange(12).reshape(3, 4),
                 np.array([[1, nan, 3, nan], [1, 2, 3, 4], [nan, 1, 2, 3]]),
                 np.array([[1, nan, 3, nan], [1, 2, 3, 4], [nan, 1, 2, 3]], "float32")):
        yield fn(skiff, skiff.to_tensor(data)), fn(paddle, paddle.to_tensor(data))


@pytest.mark.parametrize("kw", [dict(), dict(axis=0), dict(axis=1), dict(axis=-1, keepdim=True),
                                dict(keepdim=True), dict(mode="min"),
                                dict(mode="min", keepdim=True), dict(axis=1, mode="min"),
                                dict(axis=0, keepdim=True, mode="min")])
def test_median_nan_dtypes_and_indices_as_paddle(kw):
    for ours, theirs in _median_pair(lambda m, x: m.median(x, **kw)):
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, tuple) else (theirs,)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert a.dtype.name == str(b.dtype).split(".")[-1]
            assert list(a.shape) == list(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_median_gradient_goes_to_the_middle_values_or_the_first_nan():
    x = np.array([[1., 4., 2., 3.], [np.nan, 1., 2., np.nan], [5., 1., 3., 0.]], "float32")
    t = skiff.to_tensor(x, stop_gradient=False)
    skiff.median(t, axis=1).sum().backward()
    # the mean of the two middle values; in a row with NaN, the first NaN (as Paddle)
    np.testing.assert_allclose(t.grad.numpy(), [[0, 0, .5, .5], [1, 0, 0, 0], [0, .5, .5, 0]])
    t = skiff.to_tensor(x, stop_gradient=False)
    values, _ = skiff.median(t, axis=1, mode="min")
    values.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), [[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]])
