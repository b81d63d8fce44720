"""In-place updates (skiff/tensor/inplace.py and the in-place forms of the math functions):
the result is written into the tensor, gradients flow from the other inputs and through the
history, shape and dtype changes follow Paddle, a leaf needing grad refuses; Paddle's
arithmetic in-place aliases (neg_, sub_, div_, trunc_, frac_, logit_, hypot_, ...)."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import rand


def test_inplace_updates_write_into_the_tensor():
    x = skiff.to_tensor([1.0, 2.0, 3.0])
    ptr = x._data_ptr()
    x.add_(skiff.to_tensor([1.0, 1.0, 1.0]))
    x.subtract_(0.5)
    x.multiply_(2.0)
    x.scale_(0.5, 1.0)
    np.testing.assert_allclose(x.numpy(), [2.5, 3.5, 4.5])
    x.clip_(3.0, 4.0)
    np.testing.assert_allclose(x.numpy(), [3.0, 3.5, 4.0])
    assert x._data_ptr() == ptr
    x.fill_(7)
    assert x.tolist() == [7, 7, 7]
    x.zero_()
    assert x.tolist() == [0, 0, 0]
    y = skiff.ones([2, 3])
    y.reshape_([3, 2])
    assert y.shape == [3, 2]


def test_inplace_records_gradient_from_other_inputs():
    w = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    buf = skiff.ones([2])
    buf.multiply_(w * w)  # buf = w * w, its history recorded
    assert not buf.stop_gradient
    (buf * 3).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 12.0])


def test_inplace_on_a_leaf_needing_grad_is_an_error():
    w = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(skiff.Error, match="elementwise_add"):
        w.add_(skiff.to_tensor([1.0, 1.0]))
    with skiff.no_grad():
        w.add_(skiff.to_tensor([1.0, 1.0]))
    assert w.tolist() == [2.0, 3.0]
    h = w * 2  # not a leaf: updated in place, its gradient flows through both ops
    h.scale_(3.0)
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 6.0])


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


def test_arithmetic_in_place_aliases():
    a, b = np.array([7.0, -7.0, 3.0], "float32"), np.array([2.0, 2.0, -4.0], "float32")
    x = skiff.to_tensor(a.copy())
    x.neg_()
    np.testing.assert_array_equal(x.numpy(), -a)
    x = skiff.to_tensor(a.copy())
    skiff.sub_(x, skiff.to_tensor(b), alpha=2)
    np.testing.assert_array_equal(x.numpy(), a - 2 * b)
    x = skiff.to_tensor(a.copy())
    x.div_(skiff.to_tensor(b), rounding_mode="floor")
    np.testing.assert_array_equal(x.numpy(), np.floor(a / b))
    for name, fn, want in [("trunc_", lambda t: t.trunc_(), np.trunc(a / 3)),
                           ("frac_", lambda t: t.frac_(), a / 3 - np.trunc(a / 3)),
                           ("logit_", lambda t: skiff.logit_(t, eps=0.1),
                            torch.logit(torch.tensor(a / 3), eps=0.1).numpy()),
                           ("hypot_", lambda t: t.hypot_(skiff.to_tensor(b)),
                            np.hypot(a / 3, b)),
                           ("copysign_", lambda t: t.copysign_(skiff.to_tensor(b)),
                            np.copysign(a / 3, b)),
                           ("lerp_", lambda t: t.lerp_(skiff.to_tensor(b), 0.25),
                            a / 3 + 0.25 * (b - a / 3)),
                           ("sinc_", lambda t: t.sinc_(), np.sinc(a / 3))]:
        x = skiff.to_tensor(a / 3)
        fn(x)
        np.testing.assert_allclose(x.numpy(), want, rtol=1e-6, err_msg=name)
    with pytest.raises(TypeError, match="div_"):
        skiff.div_(skiff.to_tensor([1, 2]), skiff.to_tensor([2, 2]))
