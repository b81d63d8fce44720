"""Tensor functions whose meaning follows Paddle 3.x where it differs from other
libraries: round (halves to even), tensordot's unequal axis lists, clear_gradient's
zeroing, formatting a 0-d Tensor, mean(dtype=), median(mode=), linspace(device=) and the
dtype names to_tensor and randn take; values and gradients vs paddle."""
import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")


def _values_and_grads(fn, *arrays, seed=3):
    """fn's output and the gradients of sum(out * w) for each input, under a library."""
    def run(lib):
        xs = [lib.to_tensor(a, stop_gradient=False) for a in arrays]
        out = fn(lib, *xs)
        w = np.asarray(np.random.RandomState(seed).rand(*out.shape)).astype(out.numpy().dtype)
        (out * lib.to_tensor(w)).sum().backward()
        return out.numpy(), [x.grad.numpy() for x in xs]
    return run(skiff), run(paddle)


def _check(fn, *arrays, rtol=1e-6):
    (got, got_grads), (want, want_grads) = _values_and_grads(fn, *arrays)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)


def test_round_halves_to_even_and_decimals():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.3, -2.7, 8388609.0],
                 "float32")
    _check(lambda lib, t: lib.round(t), x)
    _check(lambda lib, t: t.round(), x.astype("float64"))
    _check(lambda lib, t: lib.round(t, decimals=1), np.array([1.25, 2.55, -0.35], "float64"))
    np.testing.assert_array_equal(skiff.round(skiff.to_tensor([3, -2])).numpy(), [3, -2])


@pytest.mark.parametrize("xs,ys,axes", [((2, 3, 4), (3, 5, 4), [[1, 2], [0]]),
                                        ((2, 3, 4), (3, 5, 4), [[1], [0, 2]]),
                                        ((2, 3, 4), (2, 3, 5), [[0, 1]])])
def test_tensordot_extends_the_shorter_axis_list(xs, ys, axes):
    rs = np.random.RandomState(0)
    _check(lambda lib, a, b: lib.tensordot(a, b, axes), rs.rand(*xs), rs.rand(*ys))


def test_clear_gradient_zeroes_by_default():
    for lib in (skiff, paddle):
        w = lib.to_tensor([1.0, 2.0], stop_gradient=False)
        (w * 2).sum().backward()
        w.clear_gradient()
        np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
        w.clear_gradient(False)
        assert w.grad is None


def test_a_0d_tensor_formats_as_its_number():
    for value in (3.14159, 7, True):
        s, p = skiff.to_tensor(value), paddle.to_tensor(value)
        assert "{}".format(s) == "{}".format(p)
        assert f"{s:>8}" == f"{p:>8}"
    s, p = skiff.to_tensor(3.14159), paddle.to_tensor(3.14159)
    assert f"{s:.3f}" == f"{p:.3f}" == "3.142"
    assert "{}".format(skiff.ones([2])) == str(skiff.ones([2]))
    with pytest.raises(TypeError):
        f"{skiff.ones([2]):.3f}"


def test_mean_with_dtype():
    for dtype in ("float64", "float32"):
        got = skiff.mean(skiff.to_tensor([[1, 2], [4, 4]]), axis=1, dtype=dtype)
        want = paddle.mean(paddle.to_tensor([[1, 2], [4, 4]]), axis=1, dtype=dtype)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), want.numpy())
    _check(lambda lib, t: lib.mean(t, dtype="float64"), np.arange(6.0, dtype="float32"))


@pytest.mark.parametrize("axis,keepdim", [(None, False), (1, False), (0, True), (-1, True)])
def test_median_modes(axis, keepdim):
    x = np.array([[1.0, 5.0, 3.0, 4.0], [2.0, 1.5, 0.0, 9.0], [7.0, 6.0, 8.0, 6.5]])
    for mode in ("avg", "min"):
        _check(lambda lib, t: _first(lib.median(t, axis, keepdim, mode=mode)), x)
        got = skiff.median(skiff.to_tensor(x), axis, keepdim, mode=mode)
        want = paddle.median(paddle.to_tensor(x), axis, keepdim, mode=mode)
        if isinstance(want, tuple):  # mode "min" over an axis: (values, indices)
            np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    with pytest.raises(ValueError, match="mode"):
        skiff.median(skiff.to_tensor(x), mode="max")


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def test_linspace_takes_device_and_requires_grad():
    got = skiff.linspace(0, 1, 5, device="cpu", requires_grad=True)
    want = paddle.linspace(0, 1, 5, device="cpu", requires_grad=True)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    assert got.stop_gradient == want.stop_gradient is False


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "int64", "bool", "uint8",
                                  "int8", "int16", "bfloat16", "uint16"])
def test_to_tensor_takes_paddles_dtype_names(name):
    got, want = skiff.to_tensor([1, 0, 2], dtype=name), paddle.to_tensor([1, 0, 2], dtype=name)
    assert got.dtype.name == str(want.dtype).replace("paddle.", "")
    np.testing.assert_array_equal(got.astype("float32").numpy(),
                                  want.astype("float32").numpy())


def test_float16_names_read_as_float32():
    # skiff computes no float16: the name is taken, the values kept as float32
    for name in ("float16", "half", skiff.float16):
        assert skiff.to_tensor([1.5], dtype=name).dtype == skiff.float32


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16", "double", np.float64])
def test_randn_takes_paddles_dtype_names(name):
    got, want = skiff.randn([3, 2], dtype=name), paddle.randn([3, 2], dtype=name)
    assert got.dtype.name == str(want.dtype).replace("paddle.", "")
    assert got.shape == list(want.shape)
