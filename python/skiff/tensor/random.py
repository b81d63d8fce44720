"""Random tensors (Paddle's paddle.tensor.random). They draw from the process-wide
generator (seed 0) that skiff.seed(n) restarts, so a script repeats its draws after
seeding; a nonzero ``seed`` argument gives the same values every time."""
from ..framework import dtype as dt
from ..framework.core import apply
from .creation import _default_float, _shape_list

__all__ = ["uniform", "rand", "randn", "standard_normal", "normal", "randint", "randint_like",
           "randperm"]


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """Uniform samples in [min, max); a nonzero ``seed`` gives the same values every time."""
    return apply("uniform_random", attrs={"shape": _shape_list(shape), "min": float(min),
                                          "max": float(max), "seed": int(seed),
                                          "dtype": dt.dtype_name(dtype or _default_float)})


def rand(shape, dtype=None, name=None):
    """Uniform samples in [0, 1)."""
    return uniform(shape, dtype, 0.0, 1.0)


def randn(shape, dtype=None, name=None):
    """Standard normal samples."""
    return apply("gaussian_random", attrs={"shape": _shape_list(shape), "mean": 0.0,
                                           "std": 1.0, "seed": 0,
                                           "dtype": dt.dtype_name(dtype or _default_float)})


standard_normal = randn


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal samples of the given mean and standard deviation (numbers, or tensors that
    give the shape and are broadcast)."""
    from .scalars import is_tensor
    if is_tensor(mean) or is_tensor(std):
        ref = mean if is_tensor(mean) else std
        z = apply("gaussian_random", attrs={"shape": list(ref.shape), "mean": 0.0, "std": 1.0,
                                            "seed": 0, "dtype": ref.dtype.name})
        from .math import add, multiply
        return add(multiply(z, std), mean)
    return apply("gaussian_random", attrs={"shape": _shape_list(shape), "mean": float(mean),
                                           "std": float(std), "seed": 0,
                                           "dtype": _default_float})


def randint(low=0, high=None, shape=[1], dtype=None, name=None):
    """Integers uniform in [low, high) (in [0, low) when high is None)."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    if high <= low:
        from .._C import Error
        raise Error(f"randint: high ({high}) must be above low ({low})")
    u = apply("uniform_random", attrs={"shape": _shape_list(shape), "min": 0.0,
                                       "max": float(high - low), "seed": 0,
                                       "dtype": "float64"})
    ints = apply("cast", u, attrs={"out_dtype": "int64"})  # truncates: in [0, high - low)
    ints = apply("scale", ints, attrs={"scale": 1.0, "bias": float(low)})
    name = dt.dtype_name(dtype or "int64")
    return ints if name == "int64" else apply("cast", ints, attrs={"out_dtype": name})


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """randint with x's shape (and dtype unless given)."""
    return randint(low, high, list(x.shape), dtype or x.dtype)


def randperm(n, dtype="int64", name=None):
    """A random permutation of 0..n-1."""
    keys = uniform([int(n)], "float64", 0.0, 1.0)
    perm = apply("top_k", keys, attrs={"k": int(n), "axis": -1, "largest": False,
                                       "sorted": True})[1]
    name = dt.dtype_name(dtype)
    return perm if name == "int64" else apply("cast", perm, attrs={"out_dtype": name})
