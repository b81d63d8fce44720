"""In-place random fills (Paddle's Tensor.normal_, log_normal_, cauchy_, geometric_,
exponential_), paddle.log_normal, and the generator state functions
(get_rng_state / set_rng_state); all draw from the process-wide generator."""
from .. import _C_ops
import math as _pymath

from ..framework import arguments
from ..framework.random import (get_cuda_rng_state, get_rng_state, set_cuda_rng_state,
                                set_rng_state)
from .scalars import constant, is_tensor
from .random import normal

__all__ = ["normal_", "log_normal", "log_normal_", "cauchy_", "geometric_", "exponential_",
           "get_rng_state", "set_rng_state", "get_cuda_rng_state", "set_cuda_rng_state"]


def _float_tensor(fn, x):
    if not is_tensor(x):
        raise TypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    name = x.dtype.name
    if name not in ("float32", "float64"):
        raise TypeError(f"{fn}: x must be float32 or float64, got {name}")
    return name


def _number(fn, param, value):
    """A float parameter of the fill function ``fn`` (see arguments.number)."""
    return arguments.number(fn, param, value)


def _uniform(x, low, high):
    return _C_ops.uniform_random(shape=list(x.shape), min=float(low), max=float(high), seed=0,
                                 dtype=x.dtype.name)


def _fill(x, values):
    return _C_ops.assign(values, out=[x])


def normal_(x, mean=0.0, std=1.0, name=None):
    """x filled, in place, with normal samples of the given mean and standard deviation."""
    _float_tensor("normal_", x)
    return _fill(x, _C_ops.gaussian_random(shape=list(x.shape),
                                           mean=_number("normal_", "mean", mean),
                                           std=_number("normal_", "std", std), seed=0,
                                           dtype=x.dtype.name))


def log_normal_(x, mean=1.0, std=2.0, name=None):
    """x filled, in place, with exp(N(mean, std)) samples."""
    _float_tensor("log_normal_", x)
    z = _C_ops.gaussian_random(shape=list(x.shape), mean=_number("log_normal_", "mean", mean),
                               std=_number("log_normal_", "std", std), seed=0, dtype=x.dtype.name)
    return _fill(x, _C_ops.exp(z))


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """exp(N(mean, std)) samples: of ``shape``, or broadcast like tensor mean/std."""
    if not (is_tensor(mean) or is_tensor(std)):
        if shape is None:
            raise arguments.ArgumentError("log_normal: shape is needed when mean and std are "
                                          "numbers")
        mean, std = _number("log_normal", "mean", mean), _number("log_normal", "std", std)
    if shape is not None:
        shape = arguments.shape("log_normal", shape)
    return _C_ops.exp(normal(mean, std, shape))


def cauchy_(x, loc=0, scale=1, name=None):
    """x filled, in place, with Cauchy samples loc + scale * tan(pi * (u - 1/2))."""
    _float_tensor("cauchy_", x)
    loc, scale = _number("cauchy_", "loc", loc), _number("cauchy_", "scale", scale)
    u = _uniform(x, -0.5, 0.5)
    t = _C_ops.tan(_C_ops.scale(u, scale=_pymath.pi, bias=0.0))
    return _fill(x, _C_ops.scale(t, scale=float(scale), bias=float(loc)))


def exponential_(x, lam=1.0, name=None):
    """x filled, in place, with exponential samples of rate ``lam``: -log(1 - u) / lam."""
    _float_tensor("exponential_", x)
    lam = _number("exponential_", "lam", lam)
    if lam <= 0:
        raise ValueError(f"exponential_: lam must be positive, got {lam}")
    v = _uniform(x, 0.0, 1.0)
    log_v = _C_ops.log(_C_ops.scale(v, scale=-1.0, bias=1.0))
    return _fill(x, _C_ops.scale(log_v, scale=-1.0 / float(lam), bias=0.0))


def geometric_(x, probs, name=None):
    """x filled, in place, as Paddle does: log(u) / log(1 - probs) for u uniform in
    (0, 1) (probs a number or a tensor broadcast to x)."""
    dtype = _float_tensor("geometric_", x)
    if not is_tensor(probs):
        p = _number("geometric_", "probs", probs)
        if not 0 < p < 1:
            raise ValueError(f"geometric_: probs must be in (0, 1), got {probs}")
        probs = constant(p, dtype)
    elif probs.dtype.name != dtype:
        probs = _C_ops.cast(probs, out_dtype=dtype)
    tiny = 1.1754943508222875e-38 if dtype == "float32" else 2.2250738585072014e-308
    log_u = _C_ops.log(_uniform(x, tiny, 1.0))
    log_q = _C_ops.log1p(_C_ops.scale(probs, scale=-1.0, bias=0.0))
    return _fill(x, _C_ops.elementwise_div(log_u, log_q))
