"""skiff.fft against Paddle and numpy: every transform over lengths that take the radix-2
and the Bluestein paths, n / s cropping and padding, axes, the three norms, the gradients
(complex in Paddle's convention), frequencies and shifts, and the argument errors."""
import numpy as np
import paddle
import pytest

import skiff

RNG = np.random.default_rng(0)
REAL = RNG.normal(size=(4, 6)).astype(np.float64)
CPLX = (RNG.normal(size=(4, 6)) + 1j * RNG.normal(size=(4, 6))).astype(np.complex128)


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(a.numpy(), np.asarray(b.numpy() if hasattr(b, "numpy") else b),
                               rtol=tol, atol=tol)


def run(name, data, **kw):
    return (getattr(skiff.fft, name)(skiff.to_tensor(data), **kw),
            getattr(paddle.fft, name)(paddle.to_tensor(data), **kw))


@pytest.mark.parametrize("name", ["fft", "ifft", "hfft", "irfft"])
@pytest.mark.parametrize("kw", [{}, {"n": 5}, {"n": 8}, {"n": 11, "axis": 0},
                                {"norm": "ortho"}, {"norm": "forward", "axis": -2}])
def test_one_axis_complex_input(name, kw):
    s, p = run(name, CPLX, **kw)
    assert list(s.shape) == list(p.shape) and s.dtype.name == str(p.dtype).split(".")[-1]
    close(s, p)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft"])
@pytest.mark.parametrize("kw", [{}, {"n": 7}, {"n": 16, "axis": 0}, {"norm": "ortho"},
                                {"norm": "forward"}])
def test_one_axis_real_input(name, kw):
    s, p = run(name, REAL, **kw)
    assert list(s.shape) == list(p.shape)
    close(s, p)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "fftn", "ifftn", "hfft2", "hfftn",
                                  "irfft2", "irfftn"])
@pytest.mark.parametrize("kw", [{}, {"s": [3, 10]}, {"axes": [1, 0], "norm": "ortho"},
                                {"s": [5, 4], "axes": [0, 1], "norm": "forward"}])
def test_n_dim_complex_input(name, kw):
    s, p = run(name, CPLX, **kw)
    close(s, p)


@pytest.mark.parametrize("name", ["rfft2", "rfftn", "ihfft2", "ihfftn", "fftn"])
@pytest.mark.parametrize("kw", [{}, {"s": [3, 9]}, {"axes": [1, 0]}, {"norm": "ortho"}])
def test_n_dim_real_input(name, kw):
    s, p = run(name, REAL, **kw)
    close(s, p)


def test_float32_gives_complex64_and_matches_numpy():
    x = RNG.normal(size=(3, 100)).astype(np.float32)
    y = skiff.fft.rfft(skiff.to_tensor(x))
    assert y.dtype == "complex64"
    np.testing.assert_allclose(y.numpy(), np.fft.rfft(x), rtol=1e-4, atol=1e-4)
    z = skiff.fft.irfft(y, n=100)
    np.testing.assert_allclose(z.numpy(), x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, data, kw", [
    ("fft", CPLX, {"n": 5}), ("ifft", CPLX, {"norm": "ortho"}), ("fft", REAL, {}),
    ("rfft", REAL, {"n": 7}), ("irfft", CPLX, {"n": 7}), ("irfft", CPLX, {}),
    ("hfft", CPLX, {"n": 9, "norm": "forward"}), ("ihfft", REAL, {}),
    ("fft2", CPLX, {}), ("rfft2", REAL, {"s": [3, 6]}), ("irfft2", CPLX, {"s": [4, 5]}),
    ("rfftn", REAL, {"norm": "ortho"}), ("hfftn", CPLX, {}),
])
def test_gradients_match_paddle(name, data, kw):
    w = RNG.normal(size=64)

    def grad(m):
        x = m.to_tensor(data, stop_gradient=False)
        y = getattr(m.fft, name)(x, **kw)
        flat = m.reshape(m.abs(y) if "complex" in str(y.dtype) else y, [-1])
        (flat * m.to_tensor(w[:flat.shape[0]])).sum().backward()
        return x.grad
    close(grad(skiff), grad(paddle), 1e-8)


def test_frequencies_and_shifts():
    for n, d in [(8, 1.0), (9, 0.1)]:
        close(skiff.fft.fftfreq(n, d), np.fft.fftfreq(n, d).astype(np.float32), 1e-6)
        close(skiff.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d).astype(np.float32), 1e-6)
    assert skiff.fft.fftfreq(4, dtype="float64").dtype == "float64"
    for fn in ("fftshift", "ifftshift"):
        s, p = run(fn, REAL[:, :5])
        close(s, p)
        # (Paddle's roll fails on complex tensors: numpy is the reference)
        close(getattr(skiff.fft, fn)(skiff.to_tensor(CPLX), axes=[1]),
              getattr(np.fft, fn)(CPLX, axes=[1]))


def test_errors():
    x = skiff.to_tensor(REAL)
    with pytest.raises(ValueError, match="norm"):
        skiff.fft.fft(x, norm="sideways")
    with pytest.raises(ValueError, match="n must be a positive int"):
        skiff.fft.fft(x, n=0)
    with pytest.raises(TypeError, match="real"):
        skiff.fft.rfft(skiff.to_tensor(CPLX))
    with pytest.raises(ValueError, match="s .* and axes"):
        skiff.fft.fftn(x, s=[2, 3], axes=[0])
    with pytest.raises(IndexError):
        skiff.fft.fft(x, axis=3)
