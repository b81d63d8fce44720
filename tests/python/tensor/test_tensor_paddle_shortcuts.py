"""Tensor methods that Paddle 3.x spells as shortcuts (dtype conversions, in-place forms,
linalg methods, copies and predicates), checked against Paddle's values and gradients."""
import copy

import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=np.float32)
V = np.array([[0.3, 1.7, 2.5], [4.2, 0.9, 1.1]], dtype=np.float32)


def both(arr, grad=False):
    return (skiff.to_tensor(arr, stop_gradient=not grad),
            paddle.to_tensor(arr, stop_gradient=not grad))


@pytest.mark.parametrize("name", ["bfloat16", "bool", "byte", "char", "double", "float",
                                  "float16", "float32", "float64", "half", "int", "int8",
                                  "int16", "int32", "int64", "long", "short", "uint8"])
def test_dtype_shortcuts_match_paddle(name):
    s, p = both(V)
    out_s, out_p = getattr(s, name)(), getattr(p, name)()
    if name not in ("float16", "half"):  # skiff's cast to float16 computes in float32
        assert str(out_s.dtype).split(".")[-1] == str(out_p.dtype).split(".")[-1]
    np.testing.assert_allclose(out_s.astype("float32").numpy(),
                               out_p.astype("float32").numpy(), rtol=1e-3)


def test_same_dtype_shortcut_is_the_tensor_and_type_as_casts():
    s, _ = both(V)
    assert s.float() is s
    assert s.type_as(skiff.to_tensor([1])).dtype == skiff.int64


@pytest.mark.parametrize("name", ["sqrt_", "rsqrt_", "floor_", "ceil_", "sigmoid_", "log1p_",
                                  "reciprocal_", "round_", "t_"])
def test_unary_in_place_forms_match_paddle(name):
    s, p = both(V)
    out_s = getattr(s, name)()
    getattr(p, name)()
    assert out_s is s
    np.testing.assert_allclose(s.numpy(), p.numpy(), rtol=1e-6)


def test_round_in_place_with_decimals_and_binary_forms():
    s, p = both(np.array([1.25, -2.5, 3.14159], dtype=np.float32))
    s.round_(decimals=2)
    p.round_(decimals=2)
    np.testing.assert_allclose(s.numpy(), p.numpy())
    s, p = both(V)
    y = V[::-1].copy()
    s.mul_(skiff.to_tensor(y)).clamp_(1.0, 3.0)
    p.mul_(paddle.to_tensor(y)).clamp_(1.0, 3.0)
    np.testing.assert_allclose(s.numpy(), p.numpy())


def test_put_along_axis_in_place():
    idx = np.array([[0], [2]], dtype=np.int64)
    s, p = both(V)
    s.put_along_axis_(skiff.to_tensor(idx), 9.0, 1)
    p.put_along_axis_(paddle.to_tensor(idx), 9.0, 1)
    np.testing.assert_allclose(s.numpy(), p.numpy())


def test_in_place_form_carries_the_gradient():
    s, p = both(V, grad=True)
    (s * 1.0).sqrt_().sum().backward()
    (p * 1.0).sqrt_().sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), p.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("name", ["cholesky", "inverse", "pinv", "eigvalsh", "cov",
                                  "corrcoef", "cond"])
def test_linalg_methods_match_paddle(name):
    s, p = both(A, grad=name not in ("cond", "eigvalsh"))
    out_s, out_p = getattr(s, name)(), getattr(p, name)()
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-4, atol=1e-5)
    if not s.stop_gradient:
        out_s.sum().backward()
        out_p.sum().backward()
        np.testing.assert_allclose(s.grad.numpy(), p.grad.numpy(), rtol=1e-3, atol=1e-4)


def test_linalg_methods_with_operands():
    s, p = both(A)
    b = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
    np.testing.assert_allclose(s.solve(skiff.to_tensor(b)).numpy(),
                               p.solve(paddle.to_tensor(b)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(s.matrix_power(3).numpy(), p.matrix_power(3).numpy(), rtol=1e-5)
    np.testing.assert_allclose(s.slogdet().numpy(), p.slogdet().numpy(), rtol=1e-5)
    np.testing.assert_allclose(np.abs(s.qr()[1].numpy()), np.abs(p.qr()[1].numpy()), rtol=1e-4)
    np.testing.assert_allclose(s.lstsq(skiff.to_tensor(b))[0].numpy(),
                               p.lstsq(paddle.to_tensor(b))[0].numpy(), rtol=1e-4)
    lower = np.linalg.cholesky(A).astype(np.float32)
    np.testing.assert_allclose(
        skiff.to_tensor(b).cholesky_solve(skiff.to_tensor(lower), upper=False).numpy(),
        paddle.to_tensor(b).cholesky_solve(paddle.to_tensor(lower), upper=False).numpy(),
        rtol=1e-4)


@pytest.mark.parametrize("args", [(0, 3, 2), (1, 2, 1), (-1, 3, 3)])
def test_unfold_matches_paddle(args):
    s, p = both(np.arange(24, dtype=np.float32).reshape(4, 6), grad=True)
    out_s, out_p = s.unfold(*args), p.unfold(*args)
    np.testing.assert_array_equal(out_s.numpy(), out_p.numpy())
    (out_s * out_s).sum().backward()
    # Each entry's gradient sums over the windows holding it (Paddle 3.3.1's own
    # gradient counts an entry once even where windows overlap).
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    counts = np.zeros_like(x)
    axis, size, step = args
    for start in range(0, x.shape[axis] - size + 1, step):
        np.moveaxis(counts, axis, 0)[start:start + size] += 1
    np.testing.assert_allclose(s.grad.numpy(), 2 * x * counts)


@pytest.mark.parametrize("shape", [[3], [2, 3], [1, 3], [2, 1], [1, 1]])
def test_reduce_as_and_stanh_match_paddle(shape):
    x = np.random.default_rng(0).standard_normal([2, 2, 3] if shape != [2, 1] else [2, 2, 1])
    s, p = both(x.astype(np.float32), grad=True)
    target = np.zeros(shape, dtype=np.float32)
    out_s = s.reduce_as(skiff.to_tensor(target)).stanh(0.5, 2.0)
    out_p = p.reduce_as(paddle.to_tensor(target)).stanh(0.5, 2.0)
    np.testing.assert_allclose(out_s.numpy(), out_p.numpy(), rtol=1e-5)
    out_s.sum().backward()
    out_p.sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), p.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("shape,dim", [([4], None), ([2, 3], None), ([2, 3, 4], None),
                                       ([2, 3, 4, 2], None), ([2, 3], 0), ([2, 3, 4], -1)])
def test_softmax_method_matches_paddle(shape, dim):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    s, p = both(x)
    np.testing.assert_allclose(s.softmax(dim).numpy(), p.softmax(dim).numpy(), rtol=1e-5)


def test_multinomial_method_draws_indices():
    out = skiff.to_tensor([0.0, 1.0, 0.0]).multinomial(2, replacement=True)
    assert out.numpy().tolist() == [1, 1]


def test_copies_and_predicates():
    s, p = both(V, grad=True)
    assert s.ndimension() == p.ndimension() == 2
    assert s.is_same_shape(skiff.zeros([2, 3])) and not s.is_same_shape(skiff.zeros([3, 2]))
    assert s.strides == p.strides
    assert s.cpu() is s and (+s) is s
    assert s.is_dense() and not s.is_sparse() and not s.is_sparse_coo()
    dup = copy.deepcopy(s)
    assert dup is not s and dup.stop_gradient == p.stop_gradient
    np.testing.assert_array_equal(dup.numpy(), V)
    dst = skiff.zeros([2, 3])
    assert dst.copy_(skiff.to_tensor(V)) is dst
    np.testing.assert_array_equal(dst.numpy(), V)
    d = s * 2.0
    assert d.detach_() is d and d.stop_gradient
    assert skiff.to_tensor(3.7).__long__() == 3
    assert complex(skiff.to_tensor(2.0)) == 2 + 0j
