"""Binomial(total_count, probs) (Paddle's paddle.distribution.Binomial): the number of
successes in total_count trials; counts are float tensors of probs' dtype, as in Paddle."""
import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..framework import dtype as dt
from .discrete_support import entropy_over_support, sample_by_inversion
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Binomial"]


class Binomial(Distribution):
    """P(k) = C(n, k) p^k (1 - p)^(n - k) for k = 0..n, n = ``total_count``."""

    def __init__(self, total_count, probs):
        dtype = None if hasattr(probs, "shape") else dt.get_default_dtype()
        probs = as_param(probs, "probs", "Binomial", dtype)
        self.dtype = probs.dtype
        if hasattr(total_count, "shape"):
            total_count = T.cast(total_count, self.dtype)
        else:
            total_count = as_param(float(total_count), "total_count", "Binomial", self.dtype)
        self.total_count, self.probs = T.broadcast_tensors([total_count, probs])
        super().__init__(batch_shape=self.total_count.shape)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1.0 - self.probs)

    def _eps(self):
        return float(np.finfo(str(self.dtype).replace("skiff.", "")).eps)

    def _log_pmf(self, n, p, k):
        log_comb = T.lgamma(n + 1.0) - T.lgamma(n - k + 1.0) - T.lgamma(k + 1.0)
        p = T.clip(p, self._eps(), 1.0 - self._eps())
        return log_comb + k * T.log(p) + (n - k) * T.log(1.0 - p)

    def log_prob(self, value):
        """log C(n, k) + k log p + (n - k) log(1 - p), p clipped to [eps, 1 - eps]; NaN
        (k outside 0..n) becomes 0 and -inf becomes -eps, as in Paddle."""
        value = T.cast(value, self.dtype)
        return T.nan_to_num(self._log_pmf(self.total_count, self.probs, value),
                            neginf=-self._eps())

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def sample(self, shape=()):
        """Counts of shape + batch_shape (float, probs' dtype), drawn by inversion."""
        shape = list(self._extend_shape(self._check_shape(tuple(shape), "sample")))
        with no_grad():
            n, p = T.expand(self.total_count, shape), T.expand(self.probs, shape)
            width = int(np.max(self.total_count.numpy())) + 1 if self.total_count.size else 1
            draw = sample_by_inversion(
                lambda k: T.where(k <= n, self._log_pmf(n, p, k), T.full_like(k, -np.inf)),
                T.zeros_like(n), width, shape, self.dtype)
            return T.minimum(draw, n)

    def _support(self):
        top = int(np.max(self.total_count.numpy()))
        return T.arange(top + 1, dtype=self.dtype).reshape([-1] + [1] * len(self.batch_shape))

    def entropy(self):
        """-sum p(k) log p(k) over k = 0..max(total_count)."""
        return entropy_over_support(self.log_prob, self._support())

    def kl_divergence(self, other):
        return _kl_binomial_binomial(self, other)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    support = p._support()
    lp, lq = p.log_prob(support), q.log_prob(support)
    return T.sum(T.exp(lp) * (lp - lq), axis=0)
