"""histogramdd (skiff/tensor/histogramdd.py): counts, weights, ranges, density and edges
as Paddle's (and torch's where Paddle 3.3.1 fails: bin-edge tensors, equal extremes)."""
import numpy as np
import paddle
import pytest
import torch

import skiff


def _both(x, **kw):
    kw_s = {k: skiff.to_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    kw_p = {k: paddle.to_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    return skiff.histogramdd(skiff.to_tensor(x), **kw_s), paddle.histogramdd(
        paddle.to_tensor(x), **kw_p)


def _check(ours, theirs):
    assert ours[0].dtype.name == str(theirs[0].dtype).split(".")[-1]
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-6, atol=1e-7)
    assert len(ours[1]) == len(theirs[1])
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


POINTS = np.random.RandomState(0).randn(200, 3).astype("float32")


@pytest.mark.parametrize("kw", [
    dict(bins=[4, 5, 7]),
    dict(bins=3),
    dict(bins=[4, 5, 7], ranges=[-1.3, 2.7, -1.0, 1.0, 0.0, 3.1], density=True),
    dict(bins=[2, 3, 4], weights=np.random.RandomState(1).rand(200).astype("float32")),
    dict(bins=[2, 3, 4], weights=np.random.RandomState(1).rand(200).astype("float32"),
         density=True, ranges=[-1.0, 1.0, -2.0, 2.0, -0.5, 0.5]),
])
def test_matches_paddle(kw):
    _check(*_both(POINTS, **kw))


def test_docstring_examples_and_float64_batches():
    x = np.array([[0., 1.], [1., 0.], [2., 0.], [2., 2.]], "float32")
    _check(*_both(x, bins=[3, 3], weights=np.array([1., 2., 4., 8.], "float32")))
    y = np.array([[0., 0.], [1., 1.], [2., 2.]], "float32")
    _check(*_both(y, bins=[2, 2], ranges=[0., 1., 0., 1.], density=True))
    _check(*_both(np.arange(12.0).reshape(2, 2, 3), bins=2))  # leading dims flattened


def test_edges_given_and_equal_extremes_as_torch():
    x = np.array([[0., 1.], [0.3, 0.7], [5., 0.5], [0.5, 1.0]], "float32")
    edges = [np.array([0., 0.5, 1.]), np.array([0., 1.])]
    hist, got = skiff.histogramdd(skiff.to_tensor(x),
                                  bins=[skiff.to_tensor(e.astype("float32")) for e in edges])
    ref = torch.histogramdd(torch.tensor(x), bins=[torch.tensor(e, dtype=torch.float32)
                                                   for e in edges])
    np.testing.assert_array_equal(hist.numpy(), ref.hist.numpy())
    same = np.ones((2, 2), "float32")
    hist, got = skiff.histogramdd(skiff.to_tensor(same), bins=2)
    ref = torch.histogramdd(torch.tensor(same), bins=2)
    np.testing.assert_array_equal(hist.numpy(), ref.hist.numpy())
    for a, b in zip(got, ref.bin_edges):
        np.testing.assert_allclose(a.numpy(), b.numpy())


def test_nan_points_are_left_out():
    x = np.array([[0., np.nan], [0.2, 0.3]], "float32")
    hist, _ = skiff.histogramdd(skiff.to_tensor(x), bins=[2, 2], ranges=[0., 1., 0., 1.])
    np.testing.assert_array_equal(hist.numpy(), [[1., 0.], [0., 0.]])


def test_errors():
    x = skiff.to_tensor(np.zeros((3, 2), "float32"))
    with pytest.raises(ValueError, match="histogramdd: x must have at least 2 dims"):
        skiff.histogramdd(skiff.to_tensor([1., 2.]))
    with pytest.raises(ValueError, match="histogramdd: bins must have one entry per dim"):
        skiff.histogramdd(x, bins=[2])
    with pytest.raises(ValueError, match="histogramdd: ranges must be a list of 2 \\* 2"):
        skiff.histogramdd(x, ranges=[0., 1.])
    with pytest.raises(ValueError, match="min <= max"):
        skiff.histogramdd(x, bins=2, ranges=[1., 0., 0., 1.])
    with pytest.raises(ValueError, match="weights must have x's shape"):
        skiff.histogramdd(x, weights=skiff.ones([2]))
    with pytest.raises(ValueError, match="bins\\[0\\] must be >= 1"):
        skiff.histogramdd(x, bins=[0, 2])
    with pytest.raises(TypeError, match="histogramdd: x must be a float32 or float64"):
        skiff.histogramdd(skiff.to_tensor([[1, 2]]))
