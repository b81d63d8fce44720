"""Reshaping, joining, splitting, broadcasting and gathering (skiff/tensor/manipulation.py):
values vs numpy, gradients vs torch, Paddle's argument forms, and errors naming the op;
narrow, crop, take, index_sample, rot90, roll, moveaxis, take_along_axis, masked_fill, diag
and trace against PaddlePaddle 3.3, numpy and torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand

DTYPES = ["float32", "float64", "int32", "int64", "bool"]


def values(shape, dtype, seed=0):
    return (rand(shape, "float64", seed, -5, 5) > 0 if dtype == "bool"
            else rand(shape, "float64", seed, -5, 5).astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_functions_in_every_dtype(dtype):
    a = values((2, 3, 4), dtype)
    x = skiff.to_tensor(a)
    cases = [
        (skiff.reshape(x, [4, -1]), a.reshape(4, -1)),
        (x.reshape([0, 12]), a.reshape(2, 12)),
        (skiff.transpose(x, [2, 0, 1]), a.transpose(2, 0, 1)),
        (skiff.flatten(x), a.reshape(-1)),
        (x.flatten(1), a.reshape(2, 12)),
        (skiff.unsqueeze(x, [0, 4]), a[None, ..., None]),
        (skiff.squeeze(skiff.unsqueeze(x, 1)), a),
        (skiff.squeeze(skiff.unsqueeze(x, 1), axis=1), a),
        (skiff.concat([x, x], axis=-1), np.concatenate([a, a], -1)),
        (skiff.stack([x, x], axis=1), np.stack([a, a], 1)),
        (skiff.tile(x, [1, 2, 1]), np.tile(a, (1, 2, 1))),
        (skiff.expand(x[:, :1], [2, 5, 4]), np.broadcast_to(a[:, :1], (2, 5, 4))),
        (skiff.broadcast_to(x, [3, 2, 3, 4]), np.broadcast_to(a, (3, 2, 3, 4))),
        (skiff.expand_as(x[:1], x), np.broadcast_to(a[:1], a.shape)),
        (skiff.flip(x, [0, 2]), a[::-1, :, ::-1]),
        (skiff.slice(x, [1, 2], [1, -3], [3, 100]), a[:, 1:3, -3:]),
        (skiff.strided_slice(x, [2], [3], [0], [-2]), a[:, :, 3:0:-2]),
        (x.T, a.T),
        (skiff.gather(x, skiff.to_tensor([2, 0]), axis=1), a[:, [2, 0]]),
        (skiff.index_select(x, skiff.to_tensor([3, 3, 1]), axis=-1), a[..., [3, 3, 1]]),
        (skiff.gather_nd(x, skiff.to_tensor([[1, 2], [0, 0]])), a[[1, 0], [2, 0]]),
    ]
    for got, want in cases:
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), want)


def test_split_chunk_unstack():
    a = rand((6, 4), seed=1)
    x = skiff.to_tensor(a)
    for got, want in zip(skiff.split(x, 3), np.split(a, 3)):
        np.testing.assert_array_equal(got.numpy(), want)
    parts = skiff.split(x, [1, -1, 2], axis=0)
    assert [p.shape for p in parts] == [[1, 4], [3, 4], [2, 4]]
    np.testing.assert_array_equal(parts[1].numpy(), a[1:4])
    assert [p.shape for p in skiff.chunk(x, 2, axis=1)] == [[6, 2], [6, 2]]
    rows = skiff.unstack(x, axis=1)
    assert len(rows) == 4 and rows[2].shape == [6]
    np.testing.assert_array_equal(rows[2].numpy(), a[:, 2])
    assert [t.shape for t in skiff.unbind(x)] == [[4]] * 6


def test_gradients_through_shape_functions():
    a = rand((2, 3, 4), "float64", 2)
    check_grad(lambda x: x.reshape([4, 6]), lambda t: t.reshape(4, 6), a)
    check_grad(lambda x: x.transpose([1, 2, 0]), lambda t: t.permute(1, 2, 0), a)
    check_grad(lambda x: x.flatten(), lambda t: t.flatten(), a)
    check_grad(lambda x: x.unsqueeze(1).squeeze(1), lambda t: t, a)
    check_grad(lambda x: skiff.concat([x, x * 2], 1), lambda t: torch.cat([t, t * 2], 1), a)
    check_grad(lambda x: skiff.stack([x, x], 0), lambda t: torch.stack([t, t], 0), a)
    check_grad(lambda x: skiff.split(x, [1, 3], 2)[1], lambda t: torch.split(t, [1, 3], 2)[1], a)
    check_grad(lambda x: skiff.tile(x, [2, 1, 1]), lambda t: t.repeat(2, 1, 1), a)
    check_grad(lambda x: x[:, :1].expand([2, 3, 4]), lambda t: t[:, :1].expand(2, 3, 4), a)
    check_grad(lambda x: skiff.broadcast_to(x, [2, 2, 3, 4]),
               lambda t: torch.broadcast_to(t, (2, 2, 3, 4)), a)
    idx = np.array([2, 0, 2])
    check_grad(lambda x: skiff.gather(x, skiff.to_tensor(idx), axis=1),
               lambda t: torch.index_select(t, 1, torch.tensor(idx)), a)
    check_grad(lambda x: skiff.flip(x, 1), lambda t: torch.flip(t, [1]), a)
    check_grad(lambda x: skiff.strided_slice(x, [0, 2], [1, 0], [-10, 4], [-1, 3]),
               lambda t: torch.flip(t[:2], [0])[:, :, 0:4:3], a)


def test_scatter_overwrites_or_adds():
    x = skiff.to_tensor(np.zeros((4, 2), "float32"))
    upd = skiff.to_tensor(np.array([[1, 1], [2, 2], [3, 3]], "float32"))
    idx = skiff.to_tensor([1, 3, 1])
    np.testing.assert_array_equal(skiff.scatter(x, idx, upd).numpy(),
                                  [[0, 0], [3, 3], [0, 0], [2, 2]])
    np.testing.assert_array_equal(skiff.scatter(x, idx, upd, overwrite=False).numpy(),
                                  [[0, 0], [4, 4], [0, 0], [2, 2]])


def test_shape_and_arange_of_runtime_dims():
    x = skiff.ones([2, 3])
    shape = skiff.shape(x)
    assert shape.dtype == skiff.int64 and shape.tolist() == [2, 3]
    assert x.shape == [2, 3]  # the method stays the list property

    @skiff.jit.to_static(input_spec=[skiff.static.InputSpec([None, None], "float32")])
    def positions(x):  # arange up to a dim known only when the program runs
        return skiff.arange(1, skiff.shape(x)[1] + 1) * 2

    assert positions(skiff.ones([4, 5])).tolist() == [2, 4, 6, 8, 10]
    assert positions(skiff.ones([1, 2])).tolist() == [2, 4]


def test_errors_name_the_op():
    x = skiff.ones([2, 3])
    with pytest.raises(skiff.Error, match="reshape"):
        x.reshape([4, 2])
    with pytest.raises(skiff.Error, match="concat"):
        skiff.concat([x, skiff.ones([3, 3])], axis=1)
    with pytest.raises(skiff.Error, match="transpose"):
        x.transpose([0, 0])
    with pytest.raises(skiff.Error, match="split"):
        skiff.split(x, 2, axis=1)
    with pytest.raises(skiff.Error, match="gather"):
        skiff.gather(x, skiff.to_tensor([5]))


def test_narrow_and_crop():
    a = rand((3, 4, 5))
    check_grad(lambda x: skiff.narrow(x, 1, -3, 2), lambda x: torch.narrow(x, 1, 1, 2), a)
    np.testing.assert_array_equal(skiff.narrow(skiff.to_tensor(a), 2, 1, 3).numpy(),
                                  paddle.narrow(paddle.to_tensor(a), 2, 1, 3).numpy())
    with pytest.raises(ValueError, match="narrow: start"):
        skiff.narrow(skiff.to_tensor(a), 1, 3, 2)
    for shape, offsets in [([1, -1, 2], [1, 1, 3]), ([2, 2, 2], None), (None, None)]:
        np.testing.assert_array_equal(
            skiff.crop(skiff.to_tensor(a), shape, offsets).numpy(),
            paddle.crop(paddle.to_tensor(a), shape, offsets).numpy())
    check_grad(lambda x: skiff.crop(x, [2, 2, 2], [1, 0, 1]), lambda x: x[1:3, 0:2, 1:3], a)
    with pytest.raises(ValueError, match="crop: offsets"):
        skiff.crop(skiff.to_tensor(a), [3, 2, 2], [1, 0, 0])


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take_matches_paddle(mode):
    a = rand((2, 3))
    idx = np.array([[0, -1], [5, 2]]) if mode == "raise" else np.array([[0, -1], [7, -9]])
    got = skiff.take(skiff.to_tensor(a), skiff.to_tensor(idx), mode)
    want = paddle.take(paddle.to_tensor(a), paddle.to_tensor(idx), mode)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_take_gradient_and_errors():
    a = rand((2, 3))
    idx = np.array([0, 5, 5, -2])
    check_grad(lambda x: skiff.take(x, skiff.to_tensor(idx)),
               lambda x: torch.take(x, torch.tensor(idx % 6)), a)
    with pytest.raises(ValueError, match="take: index 6 is out of range"):
        skiff.take(skiff.to_tensor(a), skiff.to_tensor([6]))
    with pytest.raises(ValueError, match="take: mode"):
        skiff.take(skiff.to_tensor(a), skiff.to_tensor([0]), "nearest")


def test_sgn_and_index_sample():
    a = np.array([-2.0, 0.0, 3.5], "float32")
    np.testing.assert_array_equal(skiff.sgn(skiff.to_tensor(a)).numpy(),
                                  paddle.sgn(paddle.to_tensor(a)).numpy())
    with pytest.raises(TypeError, match="sgn: x must be float"):
        skiff.sgn(skiff.to_tensor([1, 2]))
    x = rand((3, 4))
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    got = check_grad(lambda t: skiff.index_sample(t, skiff.to_tensor(idx)),
                     lambda t: torch.gather(t, 1, torch.tensor(idx)), x)
    np.testing.assert_array_equal(
        got.numpy(), paddle.index_sample(paddle.to_tensor(x), paddle.to_tensor(idx)).numpy())
    with pytest.raises(ValueError, match="index_sample: index must have x's 3 rows"):
        skiff.index_sample(skiff.to_tensor(x), skiff.to_tensor(idx[:2]))


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


def test_roll_moveaxis():
    a = rand((3, 4, 5), "float64", 3)
    check_grad(lambda x: skiff.roll(x, 2, 1), lambda t: torch.roll(t, 2, 1), a)
    check_grad(lambda x: skiff.roll(x, [-1, 7], [0, 2]), lambda t: torch.roll(t, (-1, 7), (0, 2)),
               a)
    np.testing.assert_array_equal(skiff.roll(skiff.to_tensor(a), 5).numpy(), np.roll(a, 5))
    np.testing.assert_array_equal(skiff.moveaxis(skiff.to_tensor(a), [0, 1], [2, 0]).numpy(),
                                  np.moveaxis(a, [0, 1], [2, 0]))


def test_take_along_axis_and_masked_fill():
    a = rand((3, 5), "float64", 4)
    idx = np.array([[0, 4], [2, 2], [1, 3]])
    check_grad(lambda x: skiff.take_along_axis(x, skiff.to_tensor(idx), 1),
               lambda t: torch.take_along_dim(t, torch.tensor(idx), 1), a)
    idx0 = np.array([[2, 0, 1, 1, 0]])
    np.testing.assert_array_equal(
        skiff.take_along_axis(skiff.to_tensor(a), skiff.to_tensor(idx0), 0).numpy(),
        np.take_along_axis(a, idx0, 0))
    mask = a > 0
    np.testing.assert_array_equal(
        skiff.masked_fill(skiff.to_tensor(a), skiff.to_tensor(mask), -1.0).numpy(),
        np.where(mask, -1.0, a))


def test_diag_and_trace():
    v = rand((3,), "float64", 5)
    for k in (0, 1, -2):
        np.testing.assert_array_equal(skiff.diag(skiff.to_tensor(v), k).numpy(), np.diag(v, k))
    m = rand((4, 5), "float64", 6)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(skiff.diag(skiff.to_tensor(m), k).numpy(), np.diag(m, k))
    check_grad(lambda x: skiff.diag(x, 1), lambda t: torch.diag(t, 1), m)
    check_grad(lambda x: skiff.trace(x).reshape([1]), lambda t: torch.trace(t).reshape(1), m)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("args", [(20, 2, 0, -1), (20, 3, 1, -5), (20, 3, 2, 0), (20, 7, 6, -1)])
def test_shard_index_as_paddle(dtype, args):
    labels = np.array([[16], [1], [19], [10], [9], [0], [6]], dtype)
    ours = skiff.shard_index(skiff.to_tensor(labels), *args)
    theirs = paddle.shard_index(paddle.to_tensor(labels), *args)
    assert ours.dtype.name == dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_shard_index_errors():
    labels = skiff.to_tensor([[16], [1]])
    with pytest.raises(TypeError, match="shard_index: input must be a int32 or int64"):
        skiff.shard_index(skiff.to_tensor([[1.0]]), 20, 2, 0)
    with pytest.raises(ValueError, match="shard_index: input must have at least 2 dims"):
        skiff.shard_index(skiff.to_tensor([1, 2]), 20, 2, 0)
    with pytest.raises(ValueError, match="shard_id must be in \\[0, 1\\]"):
        skiff.shard_index(labels, 20, 2, 2)
    with pytest.raises(ValueError, match="index_num must be >= 1"):
        skiff.shard_index(labels, 0, 2, 0)
    with pytest.raises(ValueError, match="in \\[0, index_num = 10\\)"):
        skiff.shard_index(labels, 10, 2, 0)
