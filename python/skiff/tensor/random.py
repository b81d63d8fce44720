"""Random tensors (Paddle's paddle.tensor.random). They draw from the process-wide
generator (seed 0) that skiff.seed(n) restarts, so a script repeats its draws after
seeding, and as Paddle's CPU kernels draw: after paddle.seed(n), rand, randn, uniform,
normal, randint, randperm, bernoulli, multinomial and poisson give Paddle's values. A nonzero ``seed`` argument
gives the same values every time."""
import numpy as np

from .. import _C_ops
from ..framework import arguments, dtype as dt
from .scalars import is_tensor
from .math import add, multiply
from .scalars import constant
from .._C import Error

__all__ = ["uniform", "rand", "randn", "standard_normal", "normal", "randint", "randint_like",
           "randperm", "rand_like", "randn_like", "bernoulli", "bernoulli_", "multinomial",
           "poisson", "standard_gamma"]


def _float_name(fn, dtype):
    """The dtype argument of the random function ``fn``: a name, the default float dtype
    when None."""
    return arguments.dtype(fn, dt.get_default_dtype() if dtype is None else dtype)


def _single(value):
    """``value`` rounded to float32: Paddle's random ops take their bounds, mean and std
    as float32 attributes, for float64 draws too, and skiff draws Paddle's values."""
    return float(np.float32(value))


def _uniform(fn, shape, dtype, low, high, seed=0):
    """Uniform samples in [low, high) for the public function ``fn``."""
    return _C_ops.uniform_random(shape=arguments.shape(fn, shape),
                                 min=_single(arguments.number(fn, "min", low)),
                                 max=_single(arguments.number(fn, "max", high)),
                                 seed=arguments.integer(fn, "seed", seed),
                                 dtype=_float_name(fn, dtype))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """Uniform samples in [min, max); a nonzero ``seed`` gives the same values every time."""
    return _uniform("uniform", shape, dtype, min, max, seed)


def rand(shape, dtype=None, name=None):
    """Uniform samples in [0, 1)."""
    return _uniform("rand", shape, dtype, 0.0, 1.0)


def _gaussian(fn, shape, dtype, mean=0.0, std=1.0):
    """Normal samples of ``mean`` and ``std`` for the public function ``fn`` (bfloat16:
    drawn as float32 and rounded)."""
    name = _float_name(fn, dtype)
    out = _C_ops.gaussian_random(shape=arguments.shape(fn, shape),
                                 mean=_single(arguments.number(fn, "mean", mean)),
                                 std=_single(arguments.number(fn, "std", std)), seed=0,
                                 dtype="float32" if name == "bfloat16" else name)
    return _C_ops.cast(out, out_dtype="bfloat16") if name == "bfloat16" else out


def randn(shape, dtype=None, name=None):
    """Standard normal samples."""
    return _gaussian("randn", shape, dtype)


def standard_normal(shape, dtype=None, name=None):
    """Standard normal samples."""
    return _gaussian("standard_normal", shape, dtype)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal samples of the given mean and standard deviation (numbers, or tensors that
    give the shape and are broadcast)."""
    if is_tensor(mean) or is_tensor(std):
        ref = mean if is_tensor(mean) else std
        z = _C_ops.gaussian_random(shape=list(ref.shape), mean=0.0, std=1.0, seed=0,
                                   dtype=ref.dtype.name)
        return add(multiply(z, std), mean)
    if shape is None:
        raise arguments.ArgumentError("normal: shape is needed when mean and std are numbers")
    return _gaussian("normal", shape, None, mean, std)


def randint(low=0, high=None, shape=[1], dtype=None, name=None):
    """Integers uniform in [low, high) (in [0, low) when high is None)."""
    low = arguments.integer("randint", "low", low)
    if high is None:
        low, high = 0, low
    high = arguments.integer("randint", "high", high)
    name = arguments.dtype("randint", "int64" if dtype is None else dtype)
    if high <= low:
        raise arguments.ArgumentError(f"randint: high ({high}) must be above low ({low})")
    if name in ("int32", "int64"):
        return _C_ops.randint(shape=arguments.shape("randint", shape), low=low, high=high,
                              dtype=name)
    ints = _C_ops.randint(shape=arguments.shape("randint", shape), low=low, high=high)
    return _C_ops.cast(ints, out_dtype=name)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """randint with x's shape (and dtype unless given)."""
    return randint(low, high, list(x.shape), x.dtype if dtype is None else dtype)


def randperm(n, dtype="int64", name=None):
    """A random permutation of 0..n-1."""
    n = arguments.count("randperm", "n", n)
    name = arguments.dtype("randperm", dtype)
    if name in ("int32", "int64", "float32", "float64"):
        return _C_ops.randperm(n=n, dtype=name)
    return _C_ops.cast(_C_ops.randperm(n=n), out_dtype=name)


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) shaped like ``input`` (its dtype unless given)."""
    out = _uniform("rand_like", list(input.shape), input.dtype if dtype is None else dtype,
                   0.0, 1.0)
    out.stop_gradient = not requires_grad
    return out


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """Standard normal samples shaped like ``x`` (its dtype unless given)."""
    out = _gaussian("randn_like", list(x.shape), x.dtype if dtype is None else dtype)
    out.stop_gradient = not requires_grad
    return out


def _draw_below(fn, shape, p, like):
    """1 where a uniform draw falls below the probability ``p`` (a tensor or a number),
    else 0, in ``like``'s dtype (for the public function ``fn``)."""
    name = like.dtype.name
    u = uniform(shape, "float64" if name == "float64" else "float32", 0.0, 1.0)
    if not arguments.is_tensor(p):
        p = constant(arguments.number(fn, "p", p), u.dtype.name)
    elif p.dtype.name != u.dtype.name:
        p = _C_ops.cast(p, out_dtype=u.dtype.name)
    return _C_ops.cast(_C_ops.less_than(u, p), out_dtype=name)


def bernoulli(x, p=None, name=None):
    """0/1 samples shaped like x, 1 with probability x (or with ``p`` when given)."""
    return _draw_below("bernoulli", list(x.shape), x if p is None else p, x)


def bernoulli_(x, p=0.5, name=None):
    """x filled, in place, with 0/1 samples that are 1 with probability p."""
    return _C_ops.assign(_draw_below("bernoulli_", list(x.shape), p, x), out=[x])


def multinomial(x, num_samples=1, replacement=False, name=None):
    """``num_samples`` category indices drawn for each row of the weights x ([C] or
    [N, C]): independently when ``replacement``, else distinct."""
    if not is_tensor(x):
        raise TypeError(f"multinomial: x must be a Tensor, got {type(x).__name__}")
    k = arguments.count("multinomial", "num_samples", num_samples)
    if k < 1:
        raise Error(f"multinomial: num_samples must be positive, got {k}")
    if x.dtype.name not in ("float32", "float64"):
        x = _C_ops.cast(x, out_dtype="float32")
    return _C_ops.multinomial(x, num_samples=k, replacement=bool(replacement))


def _rates(fn, x):
    if not is_tensor(x):
        raise TypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{fn}: x must be float32 or float64, got {x.dtype.name}")
    return x


def poisson(x, name=None):
    """Poisson counts with the rates x (non-negative), in x's dtype; the gradient to x is
    zero, as Paddle's."""
    return _C_ops.poisson(_rates("poisson", x))


def standard_gamma(x, name=None):
    """Gamma(x, 1) draws for the concentrations x (positive), in x's dtype."""
    return _C_ops.standard_gamma(_rates("standard_gamma", x))
