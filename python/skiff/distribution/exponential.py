"""Exponential(rate) (Paddle's paddle.distribution.Exponential)."""
import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution: density rate exp(-rate x) for x >= 0."""

    def __init__(self, rate):
        self.rate = as_param(rate, "rate", "Exponential")
        self.dtype = self.rate.dtype
        super().__init__(batch_shape=self.rate.shape)

    @property
    def mean(self):
        return T.reciprocal(self.rate)

    @property
    def variance(self):
        return T.pow(self.rate, -2.0)

    def sample(self, shape=()):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """-log(u) / rate with u ~ U(tiny, 1): differentiable in rate."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        u = T.uniform(list(shape), dtype=self.dtype, min=float(np.finfo("float32").tiny),
                      max=1.0)
        return -T.log(u) / self.rate

    def prob(self, value):
        """rate exp(-rate value)."""
        value = as_param(value, "value", "Exponential.prob", self.dtype)
        return self.rate * T.exp(-self.rate * value)

    def log_prob(self, value):
        """log(rate) - rate value."""
        value = as_param(value, "value", "Exponential.log_prob", self.dtype)
        return T.log(self.rate) - self.rate * value

    def entropy(self):
        """1 - log(rate)."""
        return 1.0 - T.log(self.rate)

    def cdf(self, value):
        """1 - exp(-rate value)."""
        value = as_param(value, "value", "Exponential.cdf", self.dtype)
        return 1.0 - T.exp(-self.rate * value)

    def icdf(self, value):
        """-log1p(-value) / rate."""
        value = as_param(value, "value", "Exponential.icdf", self.dtype)
        return -T.log1p(-value) / self.rate


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -T.log(ratio) + ratio - 1.0
