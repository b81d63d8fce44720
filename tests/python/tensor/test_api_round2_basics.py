"""Constants, range, narrow, crop, take, sgn, index_sample, the in-place math variants,
ldexp, frexp and multiplex against PaddlePaddle 3.3 and torch."""
import math

import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand


def test_constants():
    assert skiff.pi == paddle.pi == math.pi and skiff.e == paddle.e
    assert skiff.inf == paddle.inf and math.isnan(skiff.nan)


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


UNARY_IN_PLACE = ["sin_", "cos_", "abs_", "square_", "log_", "log2_", "log10_"]


@pytest.mark.parametrize("fn", UNARY_IN_PLACE)
def test_unary_in_place_matches_paddle(fn):
    a = rand((2, 3), "float64", lo=0.1, hi=3.0)
    x, p = skiff.to_tensor(a.copy()), paddle.to_tensor(a.copy())
    out = getattr(skiff, fn)(x)
    getattr(paddle, fn)(p)
    assert out is x
    np.testing.assert_allclose(x.numpy(), p.numpy(), rtol=1e-12)
    y = skiff.to_tensor(a.copy())
    getattr(y, fn)()  # the method too
    np.testing.assert_allclose(y.numpy(), p.numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn,other", [("pow_", 3.0), ("floor_divide_", -2.0),
                                      ("remainder_", 1.5), ("mod_", -1.5),
                                      ("floor_mod_", 2.0), ("divide_", 4.0)])
def test_binary_in_place_matches_paddle(fn, other):
    a = rand((2, 3), "float32", lo=-4, hi=4)
    b = np.full((2, 3), other, "float32")
    x, p = skiff.to_tensor(a.copy()), paddle.to_tensor(a.copy())
    y = b[0, 0].item() if fn == "pow_" else skiff.to_tensor(b)
    getattr(skiff, fn)(x, y)
    getattr(paddle, fn)(p, b[0, 0].item() if fn == "pow_" else paddle.to_tensor(b))
    np.testing.assert_allclose(x.numpy(), p.numpy(), rtol=1e-5, atol=1e-6)


def test_in_place_shape_and_dtype_changes_follow_paddle():
    a = np.array([[1, 2], [3, 4]], "int64")
    x, p = skiff.to_tensor(a.copy()), paddle.to_tensor(a.copy())
    skiff.divide_(x, skiff.to_tensor(np.full((2, 2), 2, "int64")))
    p.divide_(paddle.to_tensor(np.full((2, 2), 2, "int64")))
    assert x.dtype.name == "float32"
    np.testing.assert_array_equal(x.numpy(), p.numpy())
    x = skiff.to_tensor(a.astype("float32"))
    x.cumsum_()
    np.testing.assert_array_equal(x.numpy(), [1, 3, 6, 10])
    x = skiff.to_tensor(a.astype("float32"))
    skiff.cumsum_(x, axis=0)
    np.testing.assert_array_equal(x.numpy(), [[1, 2], [4, 6]])
    x.cast_("float64")
    assert x.dtype.name == "float64"
    x.divide_(-4.0, rounding_mode="trunc")
    np.testing.assert_array_equal(x.numpy(), [[0, 0], [-1, -1]])


def test_tril_triu_where_in_place():
    a = rand((3, 4))
    for fn, k in [("tril_", 0), ("triu_", 1), ("tril_", -1)]:
        x = skiff.to_tensor(a.copy())
        assert getattr(skiff, fn)(x, k) is x
        np.testing.assert_array_equal(x.numpy(), getattr(np, fn[:-1])(a, k))
    x, y = skiff.to_tensor(a.copy()), skiff.to_tensor(-a)
    cond = skiff.to_tensor(a > 0)
    assert skiff.where_(cond, x, y) is x
    np.testing.assert_array_equal(x.numpy(), np.where(a > 0, a, -a))
    with pytest.raises(TypeError, match="where_: x and y"):
        skiff.where_(cond, x)


def test_in_place_keeps_history_for_gradients():
    a = rand((2, 3), lo=0.5, hi=2.0)
    leaf = skiff.to_tensor(a, stop_gradient=False)
    y = leaf * 2.0
    y.log_()
    y.pow_(2.0)
    y.sum().backward()
    t = torch.tensor(a, requires_grad=True)
    torch.log(t * 2).pow(2).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), t.grad.numpy(), rtol=1e-5)


def test_ldexp_matches_torch_and_paddle():
    a = rand((3, 4))
    e = np.array([[3, -1, 0, 10]] * 3)
    check_grad(lambda x: skiff.ldexp(x, skiff.to_tensor(e)),
               lambda x: torch.ldexp(x, torch.tensor(e)), a)
    got = skiff.ldexp(skiff.to_tensor([1, 2]), skiff.to_tensor([3, -1]))
    want = paddle.ldexp(paddle.to_tensor([1, 2]), paddle.to_tensor([3, -1]))
    assert got.dtype.name == "float32"
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = skiff.to_tensor([1, 2])
    skiff.ldexp_(x, skiff.to_tensor([3, 1]))
    np.testing.assert_array_equal(x.numpy(), [8.0, 4.0])
    with pytest.raises(TypeError, match="ldexp: y must be a Tensor"):
        skiff.ldexp(skiff.to_tensor([1.0]), 2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_is_exact(dtype):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(500) * np.exp(rng.uniform(-60, 60, 500))).astype(dtype)
    a = np.concatenate([a, np.array([0.0, -0.0, 1.0, 0.5, -4.0, 1 - 2.0**-24, 3e38, 1e-37],
                                    dtype)])
    m, e = skiff.frexp(skiff.to_tensor(a))
    want_m, want_e = np.frexp(a)
    assert e.dtype.name == dtype
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)
    pm, pe = paddle.frexp(paddle.to_tensor(a[:100]))
    np.testing.assert_array_equal(m.numpy()[:100], pm.numpy())
    np.testing.assert_array_equal(e.numpy()[:100], pe.numpy())
    special_m, special_e = skiff.frexp(skiff.to_tensor(np.array([np.inf, np.nan], dtype)))
    assert np.isinf(special_m.numpy()[0]) and np.isnan(special_m.numpy()[1])
    np.testing.assert_array_equal(special_e.numpy(), [0, 0])
    with pytest.raises(TypeError, match="frexp: x must be float"):
        skiff.frexp(skiff.to_tensor([1, 2]))


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
