"""Elementwise math, scalar arithmetic (dtype kept, reversed operators), reductions,
cumsum/logsumexp and in-place updates: values vs numpy/torch, gradients vs torch."""
import numpy as np
import pytest
import torch

import skiff
from helpers import TOL, check_grad, rand


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,tname,lo", [
    ("exp", "exp", -2), ("log", "log", 0.1), ("log1p", "log1p", -0.5), ("sin", "sin", -3),
    ("cos", "cos", -3), ("tanh", "tanh", -2), ("sqrt", "sqrt", 0.1), ("rsqrt", "rsqrt", 0.1),
    ("abs", "abs", -2), ("square", "square", -2), ("sigmoid", "sigmoid", -3),
    ("reciprocal", "reciprocal", 0.5),
])
def test_unary_values_and_grads(name, tname, lo, dtype):
    a = rand((3, 5), dtype, lo=lo, hi=3)
    check_grad(getattr(skiff, name), getattr(torch, tname), a)
    np.testing.assert_allclose(getattr(skiff.to_tensor(a), name)().numpy(),
                               getattr(torch, tname)(torch.tensor(a)).numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_rounding_and_sign(dtype):
    a = np.array([-2.7, -1.5, -0.2, 0, 0.4, 1.5, 2.5]).astype(dtype)
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(skiff.floor(x).numpy(), np.floor(a).astype(dtype))
    np.testing.assert_array_equal(skiff.ceil(x).numpy(), np.ceil(a).astype(dtype))
    np.testing.assert_array_equal(skiff.sign(x).numpy(), np.sign(a))
    # halves away from zero, as Paddle
    np.testing.assert_array_equal(skiff.round(x).numpy(),
                                  (np.sign(a) * np.floor(np.abs(a) + 0.5)).astype(dtype))
    assert skiff.floor(x).dtype == dtype


def test_isnan_isinf_isfinite():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], "float32")
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(skiff.isnan(x).numpy(), np.isnan(a))
    np.testing.assert_array_equal(x.isinf().numpy(), np.isinf(a))
    np.testing.assert_array_equal(skiff.isfinite(x).numpy(), np.isfinite(a))
    assert skiff.isnan(skiff.to_tensor([1, 2])).numpy().tolist() == [False, False]


SCALAR_CASES = [
    ("x + 2", lambda x: x + 2), ("x - 2", lambda x: x - 2), ("2 - x", lambda x: 2 - x),
    ("x * 3", lambda x: x * 3), ("3 * x", lambda x: 3 * x), ("x / 4", lambda x: x / 4),
    ("6 / x", lambda x: 6 / x), ("x // 3", lambda x: x // 3), ("7 // x", lambda x: 7 // x),
    ("x % 3", lambda x: x % 3), ("7 % x", lambda x: 7 % x), ("x ** 2", lambda x: x ** 2),
    ("2 ** x", lambda x: 2 ** x), ("-x", lambda x: -x), ("x + 1.5", lambda x: x + 1.5),
    ("x * 0.5", lambda x: x * 0.5), ("1.5 - x", lambda x: 1.5 - x),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("expr,fn", SCALAR_CASES, ids=[c[0] for c in SCALAR_CASES])
def test_scalar_arithmetic_matches_paddle_rules(expr, fn, dtype):
    a = np.array([[1, 2, 3], [4, 5, 7]], dtype)
    got = fn(skiff.to_tensor(a))
    want = fn(torch.tensor(a))
    if dtype.startswith("int") and ("/" in expr and "//" not in expr or "." in expr):
        assert got.dtype == "float32"  # true division and float scalars go to float32
    else:
        assert got.dtype == dtype, f"{expr} changed {dtype} to {got.dtype}"
    np.testing.assert_allclose(got.numpy(), want.numpy().astype(got.numpy().dtype), rtol=1e-6)


def test_tensor_tensor_arithmetic_and_broadcast_grads():
    a, b = rand((3, 1, 4), seed=1), rand((5, 1), seed=2, lo=0.5)
    for op in (lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y,
               lambda x, y: x / y, lambda x, y: skiff.maximum(x, y) if isinstance(x, skiff.Tensor)
               else torch.maximum(x, y)):
        check_grad(op, op, a, b)


def test_pow_with_tensor_exponent_and_grads():
    a, b = rand((4, 3), "float64", 1, 0.2, 2), rand((3,), "float64", 2, -2, 2)
    check_grad(skiff.pow, torch.pow, a, b)
    check_grad(lambda x: x ** 3, lambda x: x ** 3, rand((4,), "float64", 3))
    check_grad(lambda x: 2.0 ** x, lambda x: 2.0 ** x, rand((4,), "float64", 4))
    ints = skiff.to_tensor([2, 3]) ** skiff.to_tensor([3, 2])
    assert ints.dtype == "int64" and ints.tolist() == [8, 9]


def test_mod_and_floor_divide_follow_python():
    a, b = np.array([-7, 7, 7, -7, 5]), np.array([3, -3, 3, -3, 5])
    x, y = skiff.to_tensor(a), skiff.to_tensor(b)
    assert (x % y).tolist() == list(a % b)
    assert skiff.floor_divide(x, y).tolist() == list(a // b)
    af = a.astype("float64")
    np.testing.assert_array_equal(skiff.remainder(skiff.to_tensor(af), 2.5).numpy(), af % 2.5)
    check_grad(skiff.remainder, torch.remainder, rand((5,), "float64", 5, 1, 3),
               rand((5,), "float64", 6, 0.4, 0.9))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis,keepdim", [(None, False), (1, False), (-1, True), ([0, 2], False),
                                          ((0, 1), True)])
def test_reductions(axis, keepdim, dtype):
    a = rand((3, 4, 5), dtype, 7)
    dims = axis if axis is None else (axis if isinstance(axis, int) else tuple(axis))
    targs = {} if dims is None else {"dim": dims, "keepdim": keepdim}
    def tprod(t, dim=None, keepdim=False):
        if dim is None:
            return torch.prod(t)
        for d in sorted([dim] if isinstance(dim, int) else [d % t.ndim for d in dim])[::-1]:
            t = torch.prod(t, d, keepdim=keepdim)
        return t

    for name, tfn in [("sum", torch.sum), ("mean", torch.mean), ("prod", tprod),
                      ("amax", torch.amax), ("amin", torch.amin), ("logsumexp", torch.logsumexp)]:
        sk = getattr(skiff, name)
        if dims is None:
            tf = (lambda t, f=tfn, n=name: f(t, dim=(0, 1, 2)) if n == "logsumexp" else f(t))
            got = check_grad(lambda x, s=sk: s(x), tf, a)
        else:
            got = check_grad(lambda x, s=sk: s(x, axis=axis, keepdim=keepdim),
                             lambda t, f=tfn: f(t, **targs), a)
        assert got.dtype == dtype
    for name in ("std", "var"):
        tf = getattr(torch, name)
        for unbiased in (True, False):
            corr = {"correction": 1 if unbiased else 0}
            check_grad(lambda x, n=name: getattr(skiff, n)(x, axis, unbiased, keepdim),
                       (lambda t, f=tf: f(t, **corr)) if dims is None else
                       (lambda t, f=tf: f(t, dim=dims, keepdim=keepdim, **corr)), a)


def test_max_min_with_methods_and_int_sums():
    a = np.array([[1, 5, 3], [4, 2, 6]], "int64")
    x = skiff.to_tensor(a)
    assert x.max().item() == 6 and x.min(axis=1).tolist() == [1, 2]
    assert x.sum().dtype == "int64" and x.sum(axis=0).tolist() == [5, 7, 9]
    assert skiff.to_tensor([True, True, False]).sum().item() == 2
    assert skiff.all(skiff.to_tensor([True, True])).item() is True
    assert skiff.any(x > 5, axis=1).tolist() == [False, True]
    assert x.numel() == 6 and skiff.numel(x).item() == 6
    assert skiff.logsumexp(skiff.to_tensor([-np.inf, -np.inf])).item() == -np.inf


def test_cumsum():
    a = rand((3, 4), "float64", 8)
    check_grad(lambda x: skiff.cumsum(x, axis=1), lambda t: torch.cumsum(t, 1), a)
    check_grad(lambda x: skiff.cumsum(x), lambda t: torch.cumsum(t.reshape(-1), 0), a)
    assert skiff.cumsum(skiff.to_tensor([1, 2, 3])).tolist() == [1, 3, 6]


def test_clip_and_scale():
    a = rand((10,), "float64", 9)
    check_grad(lambda x: skiff.clip(x, -0.5, 0.7), lambda t: torch.clamp(t, -0.5, 0.7), a)
    check_grad(lambda x: skiff.scale(x, 2.0, 1.0), lambda t: t * 2 + 1, a)
    check_grad(lambda x: skiff.scale(x, 2.0, 1.0, bias_after_scale=False),
               lambda t: (t + 1) * 2, a)


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


def test_errors_name_the_op():
    with pytest.raises(skiff.Error, match="elementwise_add"):
        skiff.to_tensor(np.ones((2, 3), "float32")) + skiff.to_tensor(np.ones(4, "float32"))
    with pytest.raises(skiff.Error, match="elementwise_mod"):
        skiff.to_tensor([1, 2]) % 0
    with pytest.raises(skiff.Error, match="sin"):
        skiff.sin(skiff.to_tensor([1, 2]))


def test_numpy_operands():
    x = skiff.to_tensor([1.0, 2.0])
    for got, want in [(x + np.array([1, 2]), [2, 4]), (x * np.float32(3), [3, 6]),
                      (np.float64(2) - x, [1, 0]), (np.array([1.0, 4.0]) / x, [1, 2]),
                      (x ** np.int64(2), [1, 4])]:
        assert isinstance(got, skiff.Tensor) and got.dtype == "float32"
        np.testing.assert_array_equal(got.numpy(), want)
