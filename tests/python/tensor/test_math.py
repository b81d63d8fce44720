"""Elementwise math (skiff/tensor/math.py): unary functions, rounding and sign, scalar
arithmetic (dtype kept, reversed operators), tensor arithmetic with broadcasting, pow, mod,
clip and scale, log2/log10/trunc, add_n, logaddexp, count_nonzero, nan_to_num, numpy
operands and the constants: values vs numpy/torch/paddle, gradients vs torch."""
import math

import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import TOL, check_grad, rand


def test_constants():
    assert skiff.pi == paddle.pi == math.pi and skiff.e == paddle.e
    assert skiff.inf == paddle.inf and math.isnan(skiff.nan)


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
    # halves to the even neighbour, as Paddle 3.x and numpy
    np.testing.assert_array_equal(skiff.round(x).numpy(), np.round(a).astype(dtype))
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


def test_clip_and_scale():
    a = rand((10,), "float64", 9)
    check_grad(lambda x: skiff.clip(x, -0.5, 0.7), lambda t: torch.clamp(t, -0.5, 0.7), a)
    check_grad(lambda x: skiff.scale(x, 2.0, 1.0), lambda t: t * 2 + 1, a)
    check_grad(lambda x: skiff.scale(x, 2.0, 1.0, bias_after_scale=False),
               lambda t: (t + 1) * 2, a)


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


def test_math_extras():
    a = rand((3, 4), "float64", 1, 0.1, 5)
    check_grad(skiff.log2, torch.log2, a)
    check_grad(skiff.log10, torch.log10, a)
    b = rand((3, 4), "float64", 2, -3, 3)
    np.testing.assert_array_equal(skiff.trunc(skiff.to_tensor(b)).numpy(), np.trunc(b))
    check_grad(skiff.logaddexp, torch.logaddexp, a, b)
    check_grad(lambda x, y: skiff.add_n([x, y, x]), lambda x, y: x + y + x, a, b)
    x = skiff.to_tensor(np.array([[0, 1, 2], [0, 0, 3]]))
    assert skiff.count_nonzero(x).item() == 3 and skiff.count_nonzero(x, 1).tolist() == [2, 1]
    c = np.array([np.nan, np.inf, -np.inf, 1.0], "float32")
    np.testing.assert_array_equal(skiff.nan_to_num(skiff.to_tensor(c)).numpy(), np.nan_to_num(c))
    np.testing.assert_array_equal(skiff.nan_to_num(skiff.to_tensor(c), 1.0, 2.0, -2.0).numpy(),
                                  [1, 2, -2, 1])
    np.testing.assert_array_equal(skiff.clamp(skiff.to_tensor(b), -1, 1).numpy(), b.clip(-1, 1))
