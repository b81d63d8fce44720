"""Parameter initializers (Paddle's paddle.nn.initializer). Each builds its values with
skiff's random and fill ops (``_value(shape, dtype)``), so the same initializer runs
eagerly or as ops of a startup program; ``init(param)`` refills an existing parameter."""
import math

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from . import arguments, dtype as dt
from .arguments import number
from .core import apply, eager_now
from .grad_mode import no_grad
from .mode import mode

__all__ = ["Initializer", "Constant", "Normal", "Uniform", "TruncatedNormal", "XavierNormal",
           "XavierUniform", "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal",
           "Bilinear", "Dirac", "calculate_gain", "set_global_initializer"]


def _random(op_type, attrs):
    """Runs a random op drawing from the process-wide generator (seed 0), which
    skiff.seed(n) restarts."""
    return apply(op_type, attrs=dict(attrs, seed=0))


def compute_fans(shape):
    """(fan_in, fan_out) of a parameter shape as Paddle computes them: a [in, out] matrix
    (Linear), or a conv filter [out, in / groups, k...] times its receptive field."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation (Paddle/PyTorch values)."""
    gains = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
             "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
             "tanh": 5.0 / 3.0, "relu": math.sqrt(2.0), "selu": 3.0 / 4.0}
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else number("calculate_gain", "param", param)
        return math.sqrt(2.0 / (1.0 + slope * slope))
    return gains[arguments.choice("calculate_gain", "nonlinearity", nonlinearity,
                                  tuple(gains) + ("leaky_relu",))]


class Initializer:
    """Base: ``_value(shape, dtype)`` returns the initial Tensor (or static Variable)."""

    def _value(self, shape, dtype):
        raise NotImplementedError(f"{type(self).__name__} does not define _value")

    def __call__(self, param, block=None):
        """Fills ``param`` with new values (in static mode: appends the ops that do)."""
        shape = [int(s) for s in param.shape]
        dtype = param._dtype_name if isinstance(param, Tensor) else dt.dtype_name(param.dtype)
        with no_grad():
            value = self._value(shape, dtype)
        if isinstance(param, Tensor):
            param._set_value(value)
        else:
            _C_ops.assign(value, out=[param])
        return param

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    """Every element = ``value``."""

    def __init__(self, value=0.0):
        self.value = number("Constant", "value", value)

    def _value(self, shape, dtype):
        return _C_ops.fill_constant(shape=list(shape), value=self.value, dtype=dt.dtype_name(dtype))


class Normal(Initializer):
    """Normal samples with ``mean`` and standard deviation ``std``."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = number("Normal", "mean", mean), number("Normal", "std", std)

    def _value(self, shape, dtype):
        return _random("gaussian_random", {"shape": list(shape), "mean": self.mean,
                                           "std": self.std, "dtype": dt.dtype_name(dtype)})


class Uniform(Initializer):
    """Uniform samples in [low, high)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self.low, self.high = number("Uniform", "low", low), number("Uniform", "high", high)
        if self.low > self.high:
            raise ValueError(f"Uniform: low ({low}) must not exceed high ({high})")

    def _value(self, shape, dtype):
        return _random("uniform_random", {"shape": list(shape), "min": self.low,
                                          "max": self.high, "dtype": dt.dtype_name(dtype)})


class TruncatedNormal(Initializer):
    """Normal(mean, std) samples restricted to [a, b] (the density renormalised there)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        fn = "TruncatedNormal"
        self.mean, self.std = number(fn, "mean", mean), number(fn, "std", std)
        self.a, self.b = number(fn, "a", a), number(fn, "b", b)
        if not self.a < self.b:
            raise ValueError(f"TruncatedNormal: a ({a}) must be below b ({b})")

    def _value(self, shape, dtype):
        return _random("truncated_gaussian_random",
                       {"shape": list(shape), "mean": self.mean, "std": self.std,
                        "a": self.a, "b": self.b, "dtype": dt.dtype_name(dtype)})


class XavierNormal(Initializer):
    """Normal(0, gain * sqrt(2 / (fan_in + fan_out))) (Glorot)."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        fn = type(self).__name__
        self.fan_in = None if fan_in is None else arguments.real(fn, "fan_in", fan_in, above=0)
        self.fan_out = None if fan_out is None else arguments.real(fn, "fan_out", fan_out,
                                                                   above=0)
        self.gain = number(fn, "gain", gain)

    def _fans(self, shape):
        fan_in, fan_out = compute_fans(shape)
        return (self.fan_in if self.fan_in is not None else fan_in,
                self.fan_out if self.fan_out is not None else fan_out)

    def _value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        std = self.gain * math.sqrt(2.0 / (fan_in + fan_out or 1))  # 0: no entries
        return Normal(0.0, std)._value(shape, dtype)


class XavierUniform(XavierNormal):
    """Uniform(-limit, limit) with limit = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def _value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        limit = self.gain * math.sqrt(6.0 / (fan_in + fan_out or 1))  # 0: no entries
        return Uniform(-limit, limit)._value(shape, dtype)


class KaimingNormal(Initializer):
    """Normal(0, gain / sqrt(fan_in)) with the gain of ``nonlinearity`` (He)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", name=None):
        fn = type(self).__name__
        self.fan_in = None if fan_in is None else arguments.real(fn, "fan_in", fan_in, above=0)
        self.negative_slope = number(fn, "negative_slope", negative_slope)
        self.nonlinearity = nonlinearity
        calculate_gain(nonlinearity, self.negative_slope)  # a known nonlinearity

    def _std(self, shape):
        fan_in = self.fan_in if self.fan_in is not None else compute_fans(shape)[0]
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan_in or 1)

    def _value(self, shape, dtype):
        return Normal(0.0, self._std(shape))._value(shape, dtype)


class KaimingUniform(KaimingNormal):
    """Uniform(-limit, limit) with limit = gain * sqrt(3 / fan_in) (He)."""

    def _value(self, shape, dtype):
        limit = math.sqrt(3.0) * self._std(shape)
        return Uniform(-limit, limit)._value(shape, dtype)


class Assign(Initializer):
    """The given values (a numpy array, nested lists or a Tensor). As in Paddle, an eager
    parameter takes the value's shape when it differs; a program's variable must match."""

    def __init__(self, value, name=None):
        self.value = value

    def _value(self, shape, dtype):
        value = self.value
        if not isinstance(value, Tensor):
            arr = np.asarray(value, dtype=dt.numpy_dtype(dtype))
            value = _C.tensor_from_array(np.ascontiguousarray(arr), True)
        if mode.static and list(value.shape) != list(shape):
            raise _C.Error(f"Assign initializer: the value has shape {list(value.shape)}, "
                           f"the parameter {list(shape)}")
        if value._dtype_name != dt.dtype_name(dtype):
            return _C_ops.cast(value, out_dtype=dt.dtype_name(dtype))
        return _C_ops.assign(value)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix of [shape[0], prod(shape[1:])] times ``gain``: the Q of
    the QR factorisation of normal samples, its columns' signs fixed by R's diagonal."""

    def __init__(self, gain=1.0, name=None):
        self.gain = number("Orthogonal", "gain", gain)

    def _value(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter needs at least 2 dims, got {shape}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        with eager_now():  # drawn now, as numbers: QR has no op here
            normal = _random("gaussian_random", {"shape": [max(rows, cols), min(rows, cols)],
                                                 "mean": 0.0, "std": 1.0, "dtype": "float64"})
            q, r = np.linalg.qr(normal.numpy())
        q = q * np.sign(np.diag(r))
        flat = q.T if rows < cols else q
        return Assign(self.gain * flat.reshape(shape))._value(shape, dtype)


class Bilinear(Initializer):
    """Bilinear-interpolation weights for a transposed conv [C_out, C_in, K, K] that
    upsamples, each channel pair the same kernel. The row coordinate of flat position i is
    i / K unfloored, as Paddle computes it, so the values equal Paddle's."""

    def _value(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear: the parameter must be [C_out, C_in, K, K], got {shape}")
        k = shape[3]
        f = math.ceil(k / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        x, y = i % k, (i / k) % shape[2]
        weight = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
        return Assign(weight.reshape(shape))._value(shape, dtype)


class Dirac(Initializer):
    """The identity of a conv [C_out, C_in, k...]: in each of ``groups`` groups, output
    channel i copies input channel i (a 1 at the kernel's centre), zeros elsewhere."""

    def __init__(self, groups=1, name=None):
        self.groups = arguments.count("Dirac", "groups", groups, 1)

    def _value(self, shape, dtype):
        if len(shape) not in (3, 4, 5) or shape[0] % self.groups:
            raise ValueError(f"Dirac: the parameter must be a 3-D to 5-D conv weight whose "
                             f"dim 0 divides into {self.groups} groups, got {shape}")
        weight = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per_group, shape[1])):
                weight[(g * per_group + i, i) + centre] = 1.0
        return Assign(weight)._value(shape, dtype)


_global = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    """Initializers used for every new weight / bias whose ParamAttr names none (None
    restores the layers' own defaults)."""
    _global["weight"] = weight_init
    _global["bias"] = bias_init


def global_initializer(is_bias):
    """The initializer set by set_global_initializer for a weight or a bias, or None."""
    return _global["bias" if is_bias else "weight"]
