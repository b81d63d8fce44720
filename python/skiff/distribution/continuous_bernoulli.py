"""ContinuousBernoulli(probs) (Paddle's paddle.distribution.ContinuousBernoulli): the
density C(p) p^x (1 - p)^(1 - x) on [0, 1]. Its closed forms divide by 1 - 2p, so for p
within ``lims`` of 1/2 they are replaced by their Taylor series around 1/2 (the exact
forms see a safe stand-in value there, which keeps their gradients finite)."""
import numbers

import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..framework import arguments
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["ContinuousBernoulli"]

_LOG2 = float(np.log(2.0))


def _value(value, dist, method):
    """``value`` as a Tensor of the distribution's dtype (a Tensor of the other float
    dtype is cast, as Paddle casts it)."""
    value = as_param(value, "value", f"ContinuousBernoulli.{method}", dist.dtype)
    return value.astype(dist.dtype) if value.dtype != dist.dtype else value


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution on [0, 1] with shape parameter ``probs``
    (clipped to [eps, 1 - eps]; a Python number becomes a [1] Tensor). ``lims`` (lo, hi)
    is where around 1/2 the Taylor series stand in for the closed forms."""

    def __init__(self, probs, lims=(0.499, 0.501)):
        if isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = [float(probs)]
        probs = as_param(probs, "probs", "ContinuousBernoulli")
        if (not isinstance(lims, (list, tuple)) or len(lims) != 2
                or not all(isinstance(v, numbers.Real) for v in lims)
                or not 0.0 <= lims[0] < 0.5 < lims[1] <= 1.0):
            raise arguments.ArgumentError(f"ContinuousBernoulli: lims must be two numbers "
                                          f"lo < 0.5 < hi in [0, 1], got {lims!r}")
        self.dtype = probs.dtype
        eps = float(np.finfo(arguments.dtype_name_of(probs)).eps)
        self.probs = T.clip(probs, eps, 1.0 - eps)
        self._lo, self._hi = float(lims[0]), float(lims[1])
        self.lims = T.to_tensor([self._lo, self._hi], dtype=self.dtype)
        super().__init__(batch_shape=self.probs.shape)

    # -- the two regimes -------------------------------------------------------------
    def _outside(self):
        """Where the closed forms are used: probs <= lo or probs > hi."""
        return (self.probs <= self._lo) | (self.probs > self._hi)

    def _cut(self):
        """probs where the closed forms are used, lo elsewhere (away from 1/2)."""
        return T.where(self._outside(), self.probs, T.full_like(self.probs, self._lo))

    def _natural(self, p):
        """log(p / (1 - p))."""
        return T.log(p) - T.log1p(-p)

    def _log_constant(self):
        """log C(p) = log(2 atanh(1 - 2p) / (1 - 2p)) = log(logit(p) / (2p - 1))."""
        c = self._cut()
        below = c <= 0.5
        safe_below = T.where(below, c, T.zeros_like(c))
        safe_above = T.where(below, T.ones_like(c), c)
        log_abs_denominator = T.where(below, T.log1p(-2.0 * safe_below),
                                      T.log(2.0 * safe_above - 1.0))
        exact = T.log(T.abs(self._natural(c))) - log_abs_denominator
        x = T.square(self.probs - 0.5)
        taylor = _LOG2 + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    @property
    def mean(self):
        """p / (2p - 1) + 1 / (log(1 - p) - log p)."""
        c = self._cut()
        exact = c / (2.0 * c - 1.0) + 1.0 / (T.log1p(-c) - T.log(c))
        d = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * T.square(d)) * d
        return T.where(self._outside(), exact, taylor)

    @property
    def variance(self):
        """p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2."""
        c = self._cut()
        exact = (c * (c - 1.0) / T.square(1.0 - 2.0 * c)
                 + 1.0 / T.square(T.log1p(-c) - T.log(c)))
        x = T.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 + 128.0 / 945.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    def log_prob(self, value):
        """log C(p) + value log p + (1 - value) log(1 - p)."""
        value = _value(value, self, "log_prob")
        return (value * self._natural(self.probs) + T.log1p(-self.probs)
                + self._log_constant())

    def entropy(self):
        """-log C(p) - E[X] log(p / (1 - p)) - log(1 - p)."""
        return (-self._log_constant() - self.mean * self._natural(self.probs)
                - T.log1p(-self.probs))

    def cdf(self, value):
        """(p^v (1 - p)^(1 - v) + p - 1) / (2p - 1) (v near p = 1/2), 0 below 0, 1 above 1."""
        value = _value(value, self, "cdf")
        c = self._cut()
        exact = (T.exp(value * T.log(c) + (1.0 - value) * T.log1p(-c)) + c - 1.0) / (
            2.0 * c - 1.0)
        inside = T.where(self._outside(), exact, value + T.zeros_like(self.probs))
        return T.where(value <= 0.0, T.zeros_like(inside),
                       T.where(value >= 1.0, T.ones_like(inside), inside))

    def icdf(self, value):
        """(log(1 - p + v (2p - 1)) - log(1 - p)) / log(p / (1 - p)) (v near p = 1/2)."""
        value = _value(value, self, "icdf")
        c = self._cut()
        exact = (T.log1p(-c + value * (2.0 * c - 1.0)) - T.log1p(-c)) / self._natural(c)
        return T.where(self._outside(), exact, value + T.zeros_like(self.probs))

    def rsample(self, shape=()):
        """icdf(u), u ~ U[0, 1) of shape + batch_shape: differentiable in probs."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        return self.icdf(T.rand(list(shape), dtype=self.dtype))

    def sample(self, shape=()):
        """Draws of shape + batch_shape (no gradient)."""
        with no_grad():
            return self.rsample(shape)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p, q):
    if p.batch_shape != q.batch_shape:
        raise ValueError(f"ContinuousBernoulli.kl_divergence: both distributions need the same "
                         f"batch_shape, got {list(p.batch_shape)} and {list(q.batch_shape)}")
    return (p.mean * (p._natural(p.probs) - q._natural(q.probs)) + p._log_constant()
            + T.log1p(-p.probs) - q._log_constant() - T.log1p(-q.probs))

