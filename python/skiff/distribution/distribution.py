"""The Distribution base class (Paddle's paddle.distribution.Distribution) and the tensor
conversion its subclasses share."""
import numbers

import numpy as np

from .. import _C
from ..framework import arguments, dtype as dt
from ..tensor.creation import data_tensor
from ..tensor import exp

__all__ = ["Distribution", "as_param", "as_params"]


def as_param(value, name, owner, dtype=None):
    """``value`` (a number, list, numpy array or Tensor) as a Tensor: numbers and lists
    become the default float dtype, float64 numpy arrays stay float64."""
    if isinstance(value, _C.Tensor):
        if arguments.dtype_name_of(value) not in ("float32", "float64"):
            raise arguments.ArgumentTypeError(f"{owner}: {name} must be a float32 or float64 "
                                              f"Tensor, got {arguments.dtype_name_of(value)}")
        return value
    if hasattr(value, "block"):
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, list, tuple, np.ndarray)):
        raise arguments.ArgumentTypeError(f"{owner}: {name} must be a float, list, numpy array "
                                          f"or Tensor, got {type(value).__name__}")
    if dtype is None:
        wide = isinstance(value, np.ndarray) and value.dtype == np.float64
        dtype = "float64" if wide else dt.get_default_dtype()
    return data_tensor(owner, name, value, dt.dtype_name(dtype))


def as_params(owner, **values):
    """Several parameters as Tensors (as_param each); numbers, lists and arrays take the dtype
    of the first parameter given as a Tensor, so a float beside a float64 Tensor is float64."""
    dtype = next((arguments.dtype_name_of(v) for v in values.values()
                  if isinstance(v, _C.Tensor)), None)
    return [as_param(v, name, owner, None if isinstance(v, np.ndarray) else dtype)
            for name, v in values.items()]


class Distribution:
    """A probability distribution with batch and event shapes; subclasses define sample,
    rsample, log_prob, entropy, mean and variance."""

    def __init__(self, batch_shape=(), event_shape=()):
        where = type(self).__name__
        self._batch_shape = tuple(arguments.shape(where, batch_shape, "batch_shape"))
        self._event_shape = tuple(arguments.shape(where, event_shape, "event_shape"))

    @property
    def batch_shape(self):
        """The shape of the batch of independent distributions."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one draw."""
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} does not define mean")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} does not define variance")

    def sample(self, shape=()):
        """Draws a tensor of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        raise NotImplementedError(f"{type(self).__name__} does not define sample")

    def rsample(self, shape=()):
        """Draws with the reparameterization trick (gradients reach the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} does not define rsample")

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} does not define entropy")

    def log_prob(self, value):
        raise NotImplementedError(f"{type(self).__name__} does not define log_prob")

    def prob(self, value):
        """The density (or mass) at ``value``: exp(log_prob(value))."""
        return exp(self.log_prob(value))

    def probs(self, value):
        """The density (or mass) at ``value`` (same as prob)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other) through the registered formula for the pair of types; a
        TypeError when ``other`` is no distribution of a type paired with this one."""
        if _lookup(type(self), type(other)) is None:
            raise TypeError(f"{type(self).__name__}.kl_divergence: no KL formula for "
                            f"{type(self).__name__} and {type(other).__name__}")
        return kl_divergence(self, other)

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _check_shape(self, shape, method):
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(s, (int, np.integer)) and s >= 0 for s in shape):
            raise arguments.ArgumentTypeError(f"{type(self).__name__}.{method}: shape must be a "
                                              f"list or tuple of non-negative ints, got "
                                              f"{shape!r}")
        return tuple(int(s) for s in shape)

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={list(self._batch_shape)})"


# KL(p || q) by the pair of types (paddle.distribution.kl; skiff.distribution.kl is its
# public module).
_REGISTRY = {}


def register_kl(cls_p, cls_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of cls_p and q of cls_q."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("register_kl: cls_p and cls_q must be subclasses of Distribution")

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn
    return decorator


def _lookup(type_p, type_q):
    matches = [(p, q) for p, q in _REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    best = min(matches, key=lambda pq: (type_p.__mro__.index(pq[0]),
                                        type_q.__mro__.index(pq[1])))
    return _REGISTRY[best]


def kl_divergence(p, q):
    """KL(p || q) for a registered pair of distribution types, elementwise over the batch."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"kl_divergence: no KL formula registered for "
                                  f"{type(p).__name__} and {type(q).__name__}")
    return fn(p, q)
