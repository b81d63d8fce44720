"""Reshaping, joining, splitting, broadcasting and gathering: values vs numpy, gradients
vs torch, Paddle's argument forms, and errors naming the op."""
import numpy as np
import pytest
import torch

import skiff
from helpers import check_grad, rand

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
