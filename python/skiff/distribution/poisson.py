"""Poisson(rate) (Paddle's paddle.distribution.Poisson). As in Paddle, a number ``rate`` gives
batch shape [1], and the entropy sums over the support up to rate + 30 sqrt(rate)."""
import math
import numbers

import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from .discrete_support import entropy_over_support, sample_by_inversion
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Poisson"]


class Poisson(Distribution):
    """P(k) = rate^k exp(-rate) / k! for k = 0, 1, ..."""

    def __init__(self, rate):
        if isinstance(rate, numbers.Real) and not isinstance(rate, bool):
            rate = [float(rate)]
        self.rate = as_param(rate, "rate", "Poisson")
        self.dtype = self.rate.dtype
        super().__init__(batch_shape=self.rate.shape)

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        """Counts of shape + batch_shape (float, rate's dtype), drawn by inversion over
        rate +- 10 sqrt(rate) + 10 (the mass outside is below 1e-20)."""
        shape = list(self._extend_shape(self._check_shape(tuple(shape), "sample")))
        with no_grad():
            rate = T.expand(self.rate, shape)
            top = float(np.max(self.rate.numpy())) if self.rate.size else 0.0
            width = int(math.ceil(20.0 * math.sqrt(top) + 30.0))
            low = T.floor(T.clip(rate - 10.0 * T.sqrt(rate) - 10.0, min=0.0))
            return sample_by_inversion(lambda k: self._log_pmf(rate, k), low, width, shape,
                                       self.dtype)

    @staticmethod
    def _log_pmf(rate, k):
        return k * T.log(rate) - rate - T.lgamma(k + 1.0)

    def log_prob(self, value):
        """value log(rate) - rate - lgamma(value + 1); -inf becomes -eps, as in Paddle."""
        value = T.cast(value, self.dtype)
        eps = float(np.finfo(str(self.dtype).replace("skiff.", "")).eps)
        return T.nan_to_num(self._log_pmf(self.rate, value), neginf=-eps)

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def _support(self, top):
        spread = math.sqrt(top) if top >= 1.0 else 1.0
        values = T.arange(0, int(top + 30 * spread), dtype=self.dtype)
        return values.reshape([-1] + [1] * len(self.batch_shape))

    def entropy(self):
        """-sum p(k) log p(k) over k < rate + 30 sqrt(rate); 0 where rate is 0."""
        top = float(np.max(self.rate.numpy()))
        h = entropy_over_support(self.log_prob, self._support(top))
        return T.where(self.rate != 0, h, T.zeros_like(h))

    def kl_divergence(self, other):
        if tuple(self.batch_shape) != tuple(other.batch_shape):
            raise ValueError("Poisson.kl_divergence: the two distributions need the same "
                             "batch_shape")
        return _kl_poisson_poisson(self, other)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (T.log(p.rate) - T.log(q.rate)) - p.rate + q.rate
