"""Creation (skiff/tensor/creation.py): full/zeros/ones(_like), arange, range (end
inclusive, as Paddle's), linspace, logspace, eye, tril/triu, tril/triu_indices, meshgrid,
assign, clone, cast, as_tensor, from_numpy and the default dtype's reach."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


def test_filled_tensors_and_likes():
    assert skiff.zeros([2, 3]).dtype == "float32" and skiff.zeros([2, 3]).tolist() == [[0] * 3] * 2
    assert skiff.ones([2], "int64").tolist() == [1, 1]
    assert skiff.full([2, 2], 7).dtype == "float32"  # Paddle's: the default float dtype
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


@pytest.mark.parametrize("args", [(5,), (0, 5), (0, 5, 2), (0.0, 1.0, 0.3), (5, 0, -2),
                                  (1, 1)])
def test_range_is_end_inclusive_like_paddle(args):
    got, want = skiff.range(*args), paddle.range(*args)
    assert got.dtype.name == "float32" and list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    ints = skiff.range(*args, dtype="int64")
    assert ints.dtype.name == "int64"


def test_range_errors_and_out():
    assert list(skiff.range(3, 1).shape) == [0]
    with pytest.raises(ValueError, match="range: step"):
        skiff.range(0, 3, 0)
    out = skiff.zeros([1])
    skiff.range(0, 2, out=out)
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2])


def test_logspace_and_triangle_indices_match_paddle():
    for args in [(0, 3, 4), (1.0, -1.0, 5, 2.0), (0, 2, 3, 10.0, "int64")]:
        got, want = skiff.logspace(*args), paddle.logspace(*args)
        assert got.dtype == str(want.dtype).replace("paddle.", "")
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    for row, col, off in [(3, 4, 0), (4, 3, 1), (4, 4, -2), (2, 5, 7)]:
        np.testing.assert_array_equal(skiff.tril_indices(row, col, off).numpy(),
                                      paddle.tril_indices(row, col, off).numpy())
        np.testing.assert_array_equal(skiff.triu_indices(row, col, off).numpy(),
                                      paddle.triu_indices(row, col, off).numpy())
    assert skiff.triu_indices(3, dtype="int32").dtype == skiff.int32
    with pytest.raises(ValueError, match="tril_indices"):
        skiff.tril_indices(-1, 2)


def test_as_tensor_and_from_numpy():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    t = skiff.from_numpy(a)
    a[0, 0] = 42.0
    assert t.numpy()[0, 0] == 42.0  # shares memory
    g = skiff.as_tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    assert g.dtype == skiff.float64 and g.stop_gradient is False
    with pytest.raises(TypeError, match="from_numpy"):
        skiff.from_numpy([1, 2])


def test_default_dtype_routes_creation():
    assert skiff.get_default_dtype() == "float32"
    try:
        skiff.set_default_dtype("float64")
        assert skiff.get_default_dtype() == "float64"
        for t in [skiff.to_tensor([1.5]), skiff.ones([2]), skiff.zeros([1]), skiff.full([1], 2.5),
                  skiff.randn([2]), skiff.rand([2]), skiff.arange(0.0, 2.0),
                  skiff.linspace(0, 1, 3), skiff.eye(2)]:
            assert t.dtype == skiff.float64
        assert skiff.to_tensor([1]).dtype == skiff.int64
        assert skiff.to_tensor(np.ones(2, "float32")).dtype == skiff.float32
    finally:
        skiff.set_default_dtype(skiff.float32)
    assert skiff.ones([1]).dtype == skiff.float32
    with pytest.raises(TypeError, match="set_default_dtype"):
        skiff.set_default_dtype("int32")


def test_asarray_copies_as_paddle():
    x = skiff.asarray(1, requires_grad=True)
    assert x.dtype == skiff.int64 and not x.stop_gradient and x.shape == []
    y = skiff.asarray(x)
    assert y is not x and y.stop_gradient  # a new tensor, stop_gradient by default
    for data in (1.5, [[0.1, 0.2], [0.3, 0.4]], np.arange(3, dtype="int16"), [True],
                 np.float64(2.0)):
        ours, theirs = skiff.asarray(data), paddle.asarray(data)
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    a = np.array([1.0, 2.0])
    t = skiff.asarray(a, copy=False, device=skiff.CPUPlace(), dtype="float32")
    a[0] = 9.0  # always a copy, as Paddle (copy is taken and has no effect)
    assert t.dtype == skiff.float32 and t.numpy().tolist() == [1.0, 2.0]


def test_to_tensor_copies_read_only_arrays():
    """Arrays over read-only memory (np.frombuffer of bytes, Arrow's buffers) are copied,
    not refused."""
    raw = np.arange(6, dtype=np.float32).tobytes()
    viewed = np.frombuffer(raw, dtype=np.float32).reshape(2, 3)
    assert not viewed.flags.writeable
    t = skiff.to_tensor(viewed)
    np.testing.assert_array_equal(t.numpy(), viewed)
    t[0, 0] = 7.0  # the tensor's memory is its own
    assert viewed[0, 0] == 0.0
    np.testing.assert_array_equal(skiff.to_tensor(viewed.T).numpy(), viewed.T)
