"""The Distribution base class (Paddle's paddle.distribution.Distribution) and the tensor
conversion its subclasses share."""
import numbers

import numpy as np

from .. import _C
from ..framework import dtype as dt

__all__ = ["Distribution", "as_param"]


def as_param(value, name, owner, dtype=None):
    """``value`` (a number, list, numpy array or Tensor) as a Tensor: numbers and lists
    become the default float dtype, float64 numpy arrays stay float64."""
    if isinstance(value, _C.Tensor) or hasattr(value, "block"):
        return value
    from ..tensor import to_tensor
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, list, tuple, np.ndarray)):
        raise TypeError(f"{owner}: {name} must be a float, list, numpy array or Tensor, got "
                        f"{type(value).__name__}")
    arr = np.asarray(value)
    if dtype is None:
        dtype = "float64" if arr.dtype == np.float64 and isinstance(value, np.ndarray) else \
            dt.get_default_dtype()
    return to_tensor(arr.astype(str(dtype).replace("skiff.", "")))


class Distribution:
    """A probability distribution with batch and event shapes; subclasses define sample,
    rsample, log_prob, entropy, mean and variance."""

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

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
        from ..tensor import exp
        return exp(self.log_prob(value))

    def probs(self, value):
        """The density (or mass) at ``value`` (same as prob)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other) through the registered formula for the pair of types."""
        from .kl import kl_divergence
        return kl_divergence(self, other)

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + self._batch_shape + self._event_shape

    def _check_shape(self, shape, method):
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(s, (int, np.integer)) and s >= 0 for s in shape):
            raise TypeError(f"{type(self).__name__}.{method}: shape must be a list or tuple of "
                            f"non-negative ints, got {shape!r}")
        return tuple(int(s) for s in shape)

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={list(self._batch_shape)})"
