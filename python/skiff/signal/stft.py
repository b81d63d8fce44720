"""paddle.signal's short-time Fourier transform (stft) and its inverse (istft), over the
fft package's transforms and the framing of frames.py."""
import numbers

import numpy as np

from ..fft import fft, ifft, irfft, rfft
from ..framework import arguments
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of
from ..tensor.complex_math import real
from ..tensor.creation import data_tensor, ones, zeros
from ..tensor.manipulation import concat, reshape, slice
from ..tensor.math import divide, multiply
from .frames import frames, overlap_add, padded_positions

__all__ = ["stft", "istft"]

_COMPLEX = ("complex64", "complex128")


def _positive(fn, param, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
        raise ArgumentError(f"{fn}: {param} must be a positive int, got {v!r}")
    return int(v)


def _lengths(fn, n_fft, hop_length, win_length):
    n_fft = _positive(fn, "n_fft", n_fft)
    hop = n_fft // 4 if hop_length is None else _positive(fn, "hop_length", hop_length)
    if hop <= 0:
        raise ArgumentError(f"{fn}: hop_length must be > 0, got {hop} (n_fft // 4)")
    win = n_fft if win_length is None else _positive(fn, "win_length", win_length)
    if win > n_fft:
        raise ArgumentError(f"{fn}: win_length ({win}) must not exceed n_fft ({n_fft})")
    return n_fft, hop, win


def _window(fn, window, win, n_fft, dtype):
    """The window (ones by default) centred in n_fft samples, as a [n_fft, 1] tensor."""
    if window is None:
        window = ones([win], dtype=dtype)
    else:
        arguments.tensor(fn, "window", window)
        if list(window.shape) != [win]:
            raise ArgumentError(f"{fn}: window must be 1-D of win_length = {win} samples, got "
                                f"shape {list(window.shape)}")
    if win < n_fft:
        left = (n_fft - win) // 2
        parts = [zeros([left], dtype=dtype_name_of(window)), window,
                 zeros([n_fft - win - left], dtype=dtype_name_of(window))]
        window = concat([p for p in parts if p.shape[0]], axis=0)
    return reshape(window, [n_fft, 1])


def _real_dtype(name):
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """The short-time Fourier transform of x ([T] or [B, T], real or complex):
    [..., n_fft // 2 + 1 (onesided) or n_fft, num_frames] complex."""
    fn = "stft"
    arguments.tensor(fn, "x", x)
    if len(x.shape) not in (1, 2):
        raise ArgumentError(f"{fn}: x must be 1-D or 2-D ([T] or [B, T]), got shape "
                            f"{list(x.shape)}")
    n_fft, hop, win = _lengths(fn, n_fft, hop_length, win_length)
    if pad_mode not in ("reflect", "constant"):
        raise ArgumentError(f"{fn}: pad_mode must be 'reflect' or 'constant', got {pad_mode!r}")
    is_complex = dtype_name_of(x) in _COMPLEX
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise ArgumentError(f"{fn}: onesided must be False for a complex x")
    if dtype_name_of(x) not in _COMPLEX + ("float32", "float64"):
        raise ArgumentTypeError(f"{fn}: x must be float32, float64, complex64 or complex128, "
                                f"got {dtype_name_of(x)}")
    pad = n_fft // 2 if center else 0
    positions = padded_positions(x.shape[-1], pad, pad_mode)
    f = frames(x, positions, n_fft, hop)
    w = _window(fn, window, win, n_fft, _real_dtype(dtype_name_of(x)))
    f = multiply(f, w)
    norm = "ortho" if normalized else "backward"
    return (rfft if onesided else fft)(f, axis=-2, norm=norm)


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """The signal whose stft is x ([..., freq, num_frames] complex), the least-squares
    estimate where frames overlap: [..., length]."""
    fn = "istft"
    arguments.tensor(fn, "x", x)
    if dtype_name_of(x) not in _COMPLEX:
        raise ArgumentTypeError(f"{fn}: x must be complex64 or complex128, got "
                                f"{dtype_name_of(x)}")
    if len(x.shape) not in (2, 3):
        raise ArgumentError(f"{fn}: x must be 2-D or 3-D ([freq, frames] or [B, freq, frames]), "
                            f"got shape {list(x.shape)}")
    n_fft, hop, win = _lengths(fn, n_fft, hop_length, win_length)
    if hop > win:
        raise ArgumentError(f"{fn}: hop_length ({hop}) must not exceed win_length ({win})")
    if return_complex and onesided:
        raise ArgumentError(f"{fn}: onesided must be False when return_complex is True")
    want = n_fft // 2 + 1 if onesided else n_fft
    if x.shape[-2] != want:
        raise ArgumentError(f"{fn}: x's frequency axis (-2) must hold {want} entries for n_fft "
                            f"= {n_fft}{' (onesided)' if onesided else ''}, got {x.shape[-2]}")
    norm = "ortho" if normalized else "backward"
    if onesided:
        f = irfft(x, n=n_fft, axis=-2, norm=norm)
    else:
        f = ifft(x, n=n_fft, axis=-2, norm=norm)
        if not return_complex:
            f = real(f)
    real_dtype = _real_dtype(dtype_name_of(x))
    w = _window(fn, window, win, n_fft, real_dtype)
    f = multiply(f, w)
    count = x.shape[-1]
    y = overlap_add(f, hop)
    # The window's squared envelope, by which overlapping frames are divided.
    w2 = np.square(w.numpy()[:, 0].astype(np.float64))
    envelope = np.zeros((count - 1) * hop + n_fft)
    for t in range(count):
        envelope[t * hop:t * hop + n_fft] += w2
    start = n_fft // 2 if center else 0
    end = len(envelope) - (n_fft // 2 if center else 0)
    if length is not None:
        length = _positive(fn, "length", length)
        end = min(start + length, len(envelope))
    if end <= start:
        raise ArgumentError(f"{fn}: no samples are left after removing the centre padding")
    if np.abs(envelope[start:end]).min() < 1e-11:
        raise ArgumentError(f"{fn}: the window's overlap-add is zero somewhere (the NOLA "
                            f"condition fails): choose another window or hop_length")
    axis = len(y.shape) - 1
    y = slice(y, [axis], [start], [end])
    env = data_tensor(fn, "window", envelope[start:end].astype(real_dtype))
    y = divide(y, env)
    if length is not None and end - start < length:  # zeros to the asked length
        shape = list(y.shape)
        shape[-1] = length - (end - start)
        y = concat([y, zeros(shape, dtype=dtype_name_of(y))], axis=axis)
    return y
