"""skiff.signal.stft / istft against Paddle: shapes and values for real and complex
signals, centre padding modes, windows shorter than n_fft, normalization, the round
trip, gradients, and the argument errors."""
import numpy as np
import paddle
import pytest

import skiff

RNG = np.random.default_rng(1)
X = RNG.normal(size=(2, 300))
XC = RNG.normal(size=(300,)) + 1j * RNG.normal(size=(300,))


def close(a, b, tol=1e-9):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("kw", [
    {"n_fft": 64}, {"n_fft": 64, "hop_length": 20, "center": False},
    {"n_fft": 50, "win_length": 40, "pad_mode": "constant", "normalized": True},
    {"n_fft": 32, "onesided": False}])
def test_stft_matches_paddle(kw):
    def f(m):
        window = None
        if "win_length" in kw:
            window = m.to_tensor(np.hanning(kw["win_length"]))
        return m.signal.stft(m.to_tensor(X), window=window, **kw)
    s, p = f(skiff), f(paddle)
    assert list(s.shape) == list(p.shape)
    close(s, p)


def test_stft_of_complex_signal():
    s = skiff.signal.stft(skiff.to_tensor(XC), n_fft=40, center=False)
    p = paddle.signal.stft(paddle.to_tensor(XC), n_fft=40, center=False)
    assert s.dtype == "complex128"
    close(s, p)


@pytest.mark.parametrize("kw", [{"n_fft": 64}, {"n_fft": 48, "hop_length": 16, "win_length": 32},
                                {"n_fft": 64, "normalized": True, "length": 280}])
def test_istft_inverts_stft(kw):
    window = None if "win_length" not in kw else np.hanning(kw["win_length"] + 2)[1:-1]

    def f(m):
        w = None if window is None else m.to_tensor(window)
        spec = m.signal.stft(m.to_tensor(X), window=w,
                             **{k: v for k, v in kw.items() if k != "length"})
        return m.signal.istft(spec, window=w, **kw)
    s, p = f(skiff), f(paddle)
    close(s, p, 1e-8)
    n = s.shape[-1]
    np.testing.assert_allclose(s.numpy(), X[:, :n], atol=1e-8)


def test_istft_complex_output():
    def f(m):
        spec = m.signal.stft(m.to_tensor(XC), n_fft=32, onesided=False)
        return m.signal.istft(spec, n_fft=32, onesided=False, return_complex=True)
    s, p = f(skiff), f(paddle)
    close(s, p, 1e-8)


def test_stft_gradient_matches_paddle():
    def grad(m):
        x = m.to_tensor(X[0], stop_gradient=False)
        y = m.signal.stft(x, n_fft=32, hop_length=8)
        m.abs(y).sum().backward()
        return x.grad
    close(grad(skiff), grad(paddle), 1e-8)


def test_errors():
    x = skiff.to_tensor(X)
    with pytest.raises(ValueError, match="n_fft"):
        skiff.signal.stft(x, n_fft=0)
    with pytest.raises(ValueError, match="win_length"):
        skiff.signal.stft(x, n_fft=16, win_length=32)
    with pytest.raises(ValueError, match="pad_mode"):
        skiff.signal.stft(x, n_fft=16, pad_mode="wrap")
    with pytest.raises(ValueError, match="1-D or 2-D"):
        skiff.signal.stft(skiff.to_tensor(np.zeros((2, 2, 40))), n_fft=16)
    with pytest.raises(TypeError, match="complex"):
        skiff.signal.istft(x, n_fft=16)


def test_stft_gradient_of_complex_signal():
    def grad(m):
        x = m.to_tensor(XC[:100], stop_gradient=False)
        y = m.signal.stft(x, n_fft=16, hop_length=4, onesided=False)
        m.abs(y).sum().backward()
        return x.grad
    close(grad(skiff), grad(paddle), 1e-8)
