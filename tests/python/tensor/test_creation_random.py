"""Creation (full/zeros/ones(_like), arange, linspace, eye, tril/triu, meshgrid, assign,
clone, cast) and random tensors (seeded through skiff.seed, in range, moments)."""
import numpy as np
import pytest
import torch

import skiff
from helpers import check_grad, rand


def test_filled_tensors_and_likes():
    assert skiff.zeros([2, 3]).dtype == "float32" and skiff.zeros([2, 3]).tolist() == [[0] * 3] * 2
    assert skiff.ones([2], "int64").tolist() == [1, 1]
    assert skiff.full([2, 2], 7).dtype == "int64"
    assert skiff.full([1], True).dtype == "bool"
    x = skiff.to_tensor(np.arange(6.0).reshape(2, 3))
    assert skiff.zeros_like(x).dtype == "float64" and skiff.ones_like(x, "int32").dtype == "int32"
    np.testing.assert_array_equal(skiff.full_like(x, 2.5).numpy(), np.full((2, 3), 2.5))
    assert skiff.arange(5).tolist() == list(range(5))
    np.testing.assert_allclose(skiff.arange(0, 1, 0.25).numpy(), np.arange(0, 1, 0.25))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace(dtype):
    for start, stop, num in [(0, 1, 5), (-3, 7, 11), (2, -2, 4), (1, 1, 1), (0.5, 2.5, 2)]:
        got = skiff.linspace(start, stop, num, dtype)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), np.linspace(start, stop, num), rtol=1e-6,
                                   atol=1e-7)


def test_eye_tril_triu():
    np.testing.assert_array_equal(skiff.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(skiff.eye(2, 4, "int64").numpy(), np.eye(2, 4, dtype=int))
    a = rand((2, 4, 5), "float64", 1)
    for k in (-2, 0, 1, 3):
        np.testing.assert_array_equal(skiff.tril(skiff.to_tensor(a), k).numpy(), np.tril(a, k))
        np.testing.assert_array_equal(skiff.to_tensor(a).triu(k).numpy(), np.triu(a, k))
    check_grad(lambda x: skiff.tril(x, -1), lambda t: torch.tril(t, -1), a)
    check_grad(lambda x: skiff.triu(x, 1), lambda t: torch.triu(t, 1), a)
    with pytest.raises(skiff.Error, match="tril"):
        skiff.tril(skiff.ones([3]))


def test_meshgrid():
    a, b = np.arange(3), np.arange(4) * 10
    gx, gy = skiff.meshgrid(skiff.to_tensor(a), skiff.to_tensor(b))
    wx, wy = np.meshgrid(a, b, indexing="ij")
    np.testing.assert_array_equal(gx.numpy(), wx)
    np.testing.assert_array_equal(gy.numpy(), wy)


def test_assign_clone_cast_detach():
    x = skiff.to_tensor([1.5, -2.5], stop_gradient=False)
    y = x.clone()
    (y * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    assert x.astype("int64").tolist() == [1, -2] and skiff.cast(x, "bool").tolist() == [True, True]
    d = x.detach()
    assert d.stop_gradient and d.tolist() == [1.5, -2.5]
    out = skiff.zeros([2])
    skiff.assign(x, out)
    assert out.tolist() == [1.5, -2.5]
    assert skiff.assign(np.array([1, 2])).tolist() == [1, 2]
    check_grad(lambda t: skiff.cast(t, "float32"), lambda t: t.float(), rand((3,), "float64", 2),
               tol=dict(rtol=1e-6, atol=1e-7))


def test_items_and_conversions():
    x = skiff.to_tensor([[1.0, 2.0]])
    assert x.item(1) == 2.0 and x.tolist() == [[1.0, 2.0]] and x.numpy().shape == (1, 2)
    assert x.ndim == 2 and x.size == 2 and x.dim() == 2 and len(x) == 1
    assert x.t().shape == [2, 1] and x.T.shape == [2, 1]
    assert float(x[0, 1]) == 2.0 and int(x[0, 0]) == 1


def test_random_is_seeded_and_in_range():
    skiff.seed(123)
    a = [skiff.rand([100]).numpy(), skiff.randn([2, 50]).numpy(),
         skiff.randint(-3, 4, [200]).numpy(), skiff.uniform([50], min=2.0, max=5.0).numpy(),
         skiff.normal(1.0, 2.0, [50]).numpy(), skiff.randperm(10).numpy()]
    skiff.seed(123)
    b = [skiff.rand([100]).numpy(), skiff.randn([2, 50]).numpy(),
         skiff.randint(-3, 4, [200]).numpy(), skiff.uniform([50], min=2.0, max=5.0).numpy(),
         skiff.normal(1.0, 2.0, [50]).numpy(), skiff.randperm(10).numpy()]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(skiff.rand([100]).numpy(), a[0])
    rand01, normal, ints, unif, _, perm = a
    assert rand01.min() >= 0 and rand01.max() < 1
    assert ints.dtype == np.int64 and ints.min() == -3 and ints.max() == 3
    assert unif.min() >= 2 and unif.max() < 5
    assert sorted(perm.tolist()) == list(range(10))
    big = skiff.randn([20000]).numpy()
    assert abs(big.mean()) < 0.05 and abs(big.std() - 1) < 0.05
    assert skiff.randint(5, shape=[3], dtype="int32").dtype == "int32"
    with pytest.raises(skiff.Error, match="randint"):
        skiff.randint(3, 3)
