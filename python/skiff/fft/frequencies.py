"""The sample frequencies of a transform's entries (fftfreq, rfftfreq) and the shifts that
put the zero frequency in the middle (fftshift, ifftshift)."""
import numbers

from ..framework import arguments, dtype as dt
from ..framework.arguments import ArgumentError
from ..tensor.creation import arange
from ..tensor.manipulation import concat, roll, slice
from ..tensor.math import scale

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _count(fn, n):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n <= 0:
        raise ArgumentError(f"{fn}: n must be a positive int, got {n!r}")
    return int(n)


def _spacing(fn, d):
    d = arguments.number(fn, "d", d)
    if d == 0:
        raise ArgumentError(f"{fn}: d (the sample spacing) must not be 0")
    return float(d)


def _float_dtype(fn, dtype):
    name = dt.get_default_dtype() if dtype is None else arguments.dtype(fn, dtype)
    if name not in ("float32", "float64"):
        raise ArgumentError(f"{fn}: dtype must be float32 or float64, got {name}")
    return name


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The frequencies of fft's n entries for sample spacing d: [0, 1, ..., -2, -1] / (d n)."""
    n, d = _count("fftfreq", n), _spacing("fftfreq", d)
    dtype = _float_dtype("fftfreq", dtype)
    k = arange(0, n, dtype=dtype)
    wrapped = scale(k, 1.0, -float(n), bias_after_scale=True)  # k - n for the upper half
    half = (n - 1) // 2 + 1
    freq = k if half == n else _join(k, wrapped, half)
    out_ = scale(freq, 1.0 / (d * n))
    out_.stop_gradient = not requires_grad
    return out_


def _join(k, wrapped, half):
    return concat([slice(k, [0], [0], [half]), slice(wrapped, [0], [half], [k.shape[0]])], axis=0)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The frequencies of rfft's n // 2 + 1 entries: [0, 1, ..., n // 2] / (d n)."""
    n, d = _count("rfftfreq", n), _spacing("rfftfreq", d)
    dtype = _float_dtype("rfftfreq", dtype)
    out_ = scale(arange(0, n // 2 + 1, dtype=dtype), 1.0 / (d * n))
    out_.stop_gradient = not requires_grad
    return out_


def _shift_axes(fn, x, axes):
    rank = len(arguments.tensor(fn, "x", x).shape)
    if axes is None:
        return list(range(rank))
    if isinstance(axes, numbers.Integral):
        return [arguments.axis(fn, axes, rank, param="axes")]
    return arguments.axes(fn, list(axes), rank, param="axes")


def fftshift(x, axes=None, name=None):
    """x rolled by half its size along ``axes`` (all by default): the zero frequency to the
    middle."""
    axes = _shift_axes("fftshift", x, axes)
    if not axes:
        return x
    return roll(x, [x.shape[a] // 2 for a in axes], axes)


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift."""
    axes = _shift_axes("ifftshift", x, axes)
    if not axes:
        return x
    return roll(x, [-(x.shape[a] // 2) for a in axes], axes)
