"""The discrete Fourier transforms of paddle.fft: fft / ifft (complex), rfft / irfft (real
signals, one-sided spectra), hfft / ihfft (Hermitian signals), each in 1-D, 2-D and N-D
forms, over the fft_c2c, fft_r2c and fft_c2r ops. ``n`` / ``s`` crop or zero-pad the
input along the transformed axes first; ``norm`` says which direction divides by N."""
import numbers

from .. import _C_ops
from ..framework import arguments
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of
from ..tensor.creation import zeros
from ..tensor.manipulation import concat, slice

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]

_NORMS = ("backward", "ortho", "forward")
_COMPLEX = ("complex64", "complex128")


def _norm(fn, norm):
    if norm not in _NORMS:
        raise ArgumentError(f"{fn}: norm must be one of 'backward', 'ortho', 'forward', got "
                            f"{norm!r}")
    return norm


def _as_complex(fn, x):
    """x as a complex tensor (a real one gets zero imaginary parts; integers and bools
    compute in float32)."""
    name = dtype_name_of(arguments.tensor(fn, "x", x))
    if name in _COMPLEX:
        return x
    if name == "float64":
        return _C_ops.cast(x, out_dtype="complex128")
    return _C_ops.cast(x, out_dtype="complex64")


def _as_real(fn, x):
    """x as a float tensor (integers and bools compute in float32); a complex x is refused."""
    name = dtype_name_of(arguments.tensor(fn, "x", x))
    if name in _COMPLEX:
        raise ArgumentTypeError(f"{fn}: x must be a real Tensor, got {name}")
    if name in ("float32", "float64"):
        return x
    return _C_ops.cast(x, out_dtype="float32")


def _resized(x, axis, n):
    """x cropped or zero-padded at the end of ``axis`` to ``n`` entries."""
    have = x.shape[axis]
    if have == n:
        return x
    if have > n:
        return slice(x, [axis], [0], [n])
    shape = list(x.shape)
    shape[axis] = n - have
    return concat([x, zeros(shape, dtype=dtype_name_of(x))], axis=axis)


def _length(fn, param, n):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n <= 0:
        raise ArgumentError(f"{fn}: {param} must be a positive int, got {n!r}")
    return int(n)


def _plan(fn, x, s, axes, default_axes):
    """(axes, lengths) of an N-D transform: axes resolved against x (each once), lengths
    from s (None: x's sizes); with only s given, the last len(s) axes."""
    rank = len(x.shape)
    if s is not None:
        if isinstance(s, numbers.Integral) or not hasattr(s, "__len__"):
            raise ArgumentTypeError(f"{fn}: s must be a sequence of ints, got {s!r}")
        s = [_length(fn, "s", v) for v in s]
    if axes is None:
        if default_axes is not None:
            axes = list(default_axes)
        else:
            axes = list(range(rank - len(s), rank)) if s is not None else list(range(rank))
    elif isinstance(axes, numbers.Integral):
        raise ArgumentTypeError(f"{fn}: axes must be a sequence of ints, got {axes!r}")
    axes = arguments.axes(fn, list(axes), rank, param="axes")
    if not axes:
        raise ArgumentError(f"{fn}: axes must not be empty")
    if s is not None and len(s) != len(axes):
        raise ArgumentError(f"{fn}: s ({len(s)} lengths) and axes ({len(axes)} axes) differ "
                            f"in length")
    lengths = s if s is not None else [x.shape[a] for a in axes]
    return axes, lengths


def _one_axis(fn, x, n, axis):
    """([axis], [n]) of a 1-D transform; n None keeps x's size."""
    axis = arguments.axis(fn, axis, len(x.shape))
    return [axis], [x.shape[axis] if n is None else _length(fn, "n", n)]


def _c2c(fn, x, axes, lengths, norm, forward):
    x = _as_complex(fn, x)
    for a, n in zip(axes, lengths):
        x = _resized(x, a, n)
    return _C_ops.fft_c2c(x, axes=axes, normalization=_norm(fn, norm), forward=forward)


def _r2c(fn, x, axes, lengths, norm, forward, onesided=True):
    x = _as_real(fn, x)
    for a, n in zip(axes, lengths):
        x = _resized(x, a, n)
    return _C_ops.fft_r2c(x, axes=axes, normalization=_norm(fn, norm), forward=forward,
                          onesided=onesided)


def _c2r(fn, x, axes, lengths, norm, forward):
    """The real signal of the Hermitian half x; lengths are the output's (the last one
    defaults to 2 * (m - 1) for m entries, when None)."""
    x = _as_complex(fn, x)
    last = lengths[-1]
    if last is None:
        last = 2 * (x.shape[axes[-1]] - 1)
        if last < 1:
            raise ArgumentError(f"{fn}: the last transformed axis has {x.shape[axes[-1]]} "
                                f"entries; give n (or s) for a 1-point output")
    for a, n in zip(axes[:-1], lengths[:-1]):
        x = _resized(x, a, n)
    x = _resized(x, axes[-1], last // 2 + 1)
    return _C_ops.fft_c2r(x, axes=axes, normalization=_norm(fn, norm), forward=forward,
                          last_dim_size=last)


def _c2r_one(fn, x, n, axis, norm, forward):
    axis = arguments.axis(fn, axis, len(x.shape))
    return _c2r(fn, x, [axis], [None if n is None else _length(fn, "n", n)], norm, forward)


def _c2r_plan(fn, x, s, axes, default_axes):
    """(axes, lengths) of an N-D c2r transform: the last length None when s is None."""
    axes, lengths = _plan(fn, x, s, axes, default_axes)
    if s is None:
        lengths[-1] = None
    return axes, lengths


def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The 1-D discrete Fourier transform of x along ``axis`` (complex result)."""
    return _c2c("fft", x, *_one_axis("fft", x, n, axis), norm, True)


def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of fft along ``axis``."""
    return _c2c("ifft", x, *_one_axis("ifft", x, n, axis), norm, False)


def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The one-sided transform of real x: the first n // 2 + 1 entries of fft."""
    return _r2c("rfft", x, *_one_axis("rfft", x, n, axis), norm, True)


def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The real signal of n points (2 * (m - 1) by default) whose rfft is x."""
    return _c2r_one("irfft", x, n, axis, norm, False)


def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The (real) fft of the Hermitian-symmetric signal whose first half is x."""
    return _c2r_one("hfft", x, n, axis, norm, True)


def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of hfft: the one-sided inverse transform of real x."""
    return _r2c("ihfft", x, *_one_axis("ihfft", x, n, axis), norm, False)


def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The N-D transform over ``axes`` (all, or the last len(s))."""
    return _c2c("fftn", x, *_plan("fftn", x, s, axes, None), norm, True)


def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of fftn."""
    return _c2c("ifftn", x, *_plan("ifftn", x, s, axes, None), norm, False)


def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The N-D transform of real x, one-sided along the last of ``axes``."""
    return _r2c("rfftn", x, *_plan("rfftn", x, s, axes, None), norm, True)


def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of rfftn (the last output length 2 * (m - 1) unless s gives it)."""
    return _c2r("irfftn", x, *_c2r_plan("irfftn", x, s, axes, None), norm, False)


def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The N-D fft of a Hermitian-symmetric signal given by its half (real result)."""
    return _c2r("hfftn", x, *_c2r_plan("hfftn", x, s, axes, None), norm, True)


def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of hfftn: the N-D inverse transform of real x, one-sided."""
    return _r2c("ihfftn", x, *_plan("ihfftn", x, s, axes, None), norm, False)


def _two(fn, axes):
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ArgumentError(f"{fn}: axes must hold 2 axes, got {axes!r}")
    return axes


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """fftn over two axes."""
    return fftn(x, s, _two("fft2", axes), norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """ifftn over two axes."""
    return ifftn(x, s, _two("ifft2", axes), norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """rfftn over two axes."""
    return rfftn(x, s, _two("rfft2", axes), norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """irfftn over two axes."""
    return irfftn(x, s, _two("irfft2", axes), norm)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """hfftn over two axes."""
    return hfftn(x, s, _two("hfft2", axes), norm)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """ihfftn over two axes."""
    return ihfftn(x, s, _two("ihfft2", axes), norm)
