"""Complex numbers: building complex tensors (complex, as_complex, polar) and taking
them apart (real, imag, as_real, angle), conj, and the promotion that mixes complex
values with real ones in arithmetic (a float32 tensor times 1j is complex64, as Paddle's).
Gradients follow Paddle: the gradient by z = a + ib is dL/da + i dL/db."""
import builtins
import numbers

import numpy as np

from .. import _C_ops
from ..framework import arguments, dtype as dt
from ..framework.arguments import ArgumentTypeError, dtype_name_of, is_tensor, kind_of
from ..framework.mode import mode
from .creation import data_tensor

__all__ = ["complex", "real", "imag", "conj", "as_complex", "as_real", "angle", "polar"]

_COMPLEX = ("complex64", "complex128")


def is_complex_value(v):
    """True for a complex tensor or a Python / numpy complex number with a nonzero kind."""
    if is_tensor(v):
        return dtype_name_of(v) in _COMPLEX
    return isinstance(v, (numbers.Complex, np.complexfloating)) and \
        not isinstance(v, numbers.Real)


def _parts_dtype(v):
    """The real dtype of v's parts (float64 for float64 and complex128; float32 else)."""
    if is_tensor(v):
        name = dt.real_name(dtype_name_of(v))
        return "float64" if name == "float64" else "float32"
    if isinstance(v, np.complex128):
        return "float64"
    return "float32"


def complex_constant(value, dtype):
    """A 0-d tensor of complex ``dtype`` holding the number ``value``."""
    value = builtins.complex(value)
    if mode.static:
        part = dt.real_name(dtype)
        re = _C_ops.fill_constant(shape=[], value=value.real, dtype=part)
        im = _C_ops.fill_constant(shape=[], value=value.imag, dtype=part)
        return _C_ops.complex(re, im)
    return data_tensor("complex", "value", np.array(value, dtype=dt.numpy_dtype(dtype)))


def as_complex_operand(v, dtype):
    """v (a tensor or a number) as a tensor of complex ``dtype``."""
    if is_tensor(v):
        return v if dtype_name_of(v) == dtype else _C_ops.cast(v, out_dtype=dtype)
    if isinstance(v, (numbers.Number, np.number)):
        return complex_constant(v, dtype)
    raise ArgumentTypeError(f"expected a Tensor or a number, got {kind_of(v)}")


def complex_operands(x, y):
    """(x, y) as tensors of one complex dtype, one of them being complex: complex128 when
    either has float64 parts, complex64 otherwise (Paddle's promotion)."""
    parts = {_parts_dtype(v) for v in (x, y) if is_tensor(v) or is_complex_value(v)}
    dtype = "complex128" if "float64" in parts else "complex64"
    return as_complex_operand(x, dtype), as_complex_operand(y, dtype)


def _tensor(fn, param, x):
    return arguments.tensor(fn, param, x)


def _need_complex(fn, x):
    if dtype_name_of(x) not in _COMPLEX:
        raise ArgumentTypeError(f"{fn}: x must be a complex64 or complex128 Tensor, got "
                                f"{dtype_name_of(x)}")


def _need_real(fn, param, x):
    if dtype_name_of(x) not in ("float32", "float64"):
        raise ArgumentTypeError(f"{fn}: {param} must be a float32 or float64 Tensor, got "
                                f"{dtype_name_of(x)}")


def complex(real, imag, out=None, name=None):
    """The complex tensor real + i imag (broadcast; float32 parts give complex64, float64
    complex128)."""
    _tensor("complex", "real", real)
    _tensor("complex", "imag", imag)
    _need_real("complex", "real", real)
    _need_real("complex", "imag", imag)
    if dtype_name_of(real) != dtype_name_of(imag):
        raise ArgumentTypeError(f"complex: real is {dtype_name_of(real)} but imag is "
                                f"{dtype_name_of(imag)}; both need one dtype")
    if list(real.shape) != list(imag.shape):
        shape = list(np.broadcast_shapes(tuple(real.shape), tuple(imag.shape)))
        real, imag = [t if list(t.shape) == shape else _C_ops.expand(t, shape=shape)
                      for t in (real, imag)]
    return _C_ops.complex(real, imag)


def real(x, name=None):
    """The real part of x (a real tensor is returned as it is)."""
    _tensor("real", "x", x)
    if dtype_name_of(x) not in _COMPLEX:
        return x
    return _C_ops.real(x)


def imag(x, name=None):
    """The imaginary part of x (zeros for a real tensor)."""
    _tensor("imag", "x", x)
    if dtype_name_of(x) not in _COMPLEX:
        return _C_ops.fill_any_like(x, value=0.0, dtype="")
    return _C_ops.imag(x)


def conj(x, name=None):
    """The complex conjugate of x (a copy of a real x)."""
    _tensor("conj", "x", x)
    if dtype_name_of(x) not in _COMPLEX:
        return _C_ops.assign(x)
    return _C_ops.conj(x)


def as_complex(x, name=None):
    """x's last dim (of size 2) read as (real, imaginary) pairs: shape [..., 2] gives [...]."""
    _tensor("as_complex", "x", x)
    _need_real("as_complex", "x", x)
    if not x.shape or x.shape[-1] != 2:
        raise arguments.ArgumentError(f"as_complex: x's last dim must be 2 (real, imaginary), "
                                      f"got shape {list(x.shape)}")
    return _C_ops.as_complex(x)


def as_real(x, name=None):
    """x's complex numbers as (real, imaginary) pairs along a new last dim of size 2."""
    _tensor("as_real", "x", x)
    _need_complex("as_real", x)
    return _C_ops.as_real(x)


def angle(x, name=None):
    """The argument of each element in (-pi, pi]; for real x, pi where x < 0, else 0.
    Integer and bool tensors compute in float32."""
    _tensor("angle", "x", x)
    name_ = dtype_name_of(x)
    if name_ not in _COMPLEX and name_ not in ("float32", "float64"):
        x = _C_ops.cast(x, out_dtype="float32")
    return _C_ops.angle(x)


def complex_abs(x):
    """|x| (real) of a complex tensor x."""
    return _C_ops.complex_abs(x)


def polar(abs, angle, name=None):
    """The complex tensor abs * (cos(angle) + i sin(angle)) (abs and angle: one float
    dtype, broadcast)."""
    _tensor("polar", "abs", abs)
    _tensor("polar", "angle", angle)
    _need_real("polar", "abs", abs)
    _need_real("polar", "angle", angle)
    if dtype_name_of(abs) != dtype_name_of(angle):
        raise ArgumentTypeError(f"polar: abs is {dtype_name_of(abs)} but angle is "
                                f"{dtype_name_of(angle)}; both need one dtype")
    re = _C_ops.elementwise_mul(abs, _C_ops.cos(angle))
    im = _C_ops.elementwise_mul(abs, _C_ops.sin(angle))
    return complex(re, im)


def complex_sgn(x):
    """x / |x| for complex x, 0 where x is 0 (0 / 1 there)."""
    a = _C_ops.complex_abs(x)
    zero = _C_ops.equal(a, _C_ops.fill_any_like(a, value=0.0, dtype=""))
    safe = _C_ops.where(zero, _C_ops.fill_any_like(a, value=1.0, dtype=""), a)
    return _C_ops.elementwise_div(x, _C_ops.cast(safe, out_dtype=dtype_name_of(x)))


def complex_reduce(reduce, x):
    """A linear reduction (sum, mean) of complex x through its parts:
    ``reduce(real) + i reduce(imag)``."""
    return _C_ops.complex(reduce(_C_ops.real(x)), reduce(_C_ops.imag(x)))


def complex_matmul(matmul, x, y):
    """x @ y of complex (or mixed) tensors from real products of the parts:
    (a + ib)(c + id) = (ac - bd) + i(ad + bc)."""
    x, y = complex_operands(x, y)
    a, b = _C_ops.real(x), _C_ops.imag(x)
    c, d = _C_ops.real(y), _C_ops.imag(y)
    re = _C_ops.elementwise_sub(matmul(a, c), matmul(b, d))
    im = _C_ops.elementwise_add(matmul(a, d), matmul(b, c))
    return _C_ops.complex(re, im)
