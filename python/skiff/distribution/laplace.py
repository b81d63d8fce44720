"""Laplace(loc, scale) (Paddle's paddle.distribution.Laplace)."""
import math

from .. import tensor as T
from ..framework import dtype as dt
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution: density exp(-|x - loc| / scale) / (2 scale)."""

    def __init__(self, loc, scale):
        loc, scale = as_param(loc, "loc", "Laplace"), as_param(scale, "scale", "Laplace")
        self.loc, self.scale = T.broadcast_tensors([loc, scale])
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return math.sqrt(2.0) * self.scale

    @property
    def variance(self):
        return 2.0 * T.square(self.scale)

    def log_prob(self, value):
        """-log(2 scale) - |value - loc| / scale."""
        value = as_param(value, "value", "Laplace.log_prob", self.dtype)
        return -T.log(2.0 * self.scale) - T.abs(value - self.loc) / self.scale

    def entropy(self):
        """1 + log(2 scale)."""
        return 1.0 + T.log(2.0 * self.scale)

    def cdf(self, value):
        """0.5 - 0.5 sign(v - loc) expm1(-|v - loc| / scale)."""
        value = as_param(value, "value", "Laplace.cdf", self.dtype)
        d = value - self.loc
        return 0.5 - 0.5 * T.sign(d) * T.expm1(-T.abs(d) / self.scale)

    def icdf(self, value):
        """loc - scale sign(v - 0.5) log1p(-2 |v - 0.5|)."""
        value = as_param(value, "value", "Laplace.icdf", self.dtype)
        t = value - 0.5
        return self.loc - self.scale * T.sign(t) * T.log1p(-2.0 * T.abs(t))

    def sample(self, shape=()):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """loc - scale sign(u) log1p(-|u|) with u ~ U(-1, 1): differentiable."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        eps = 2.22045e-16 if self.dtype == dt.float64 else 1.19209e-07
        u = T.uniform(list(shape), dtype=self.dtype, min=-1.0 + eps, max=1.0 - eps / 2)
        return self.loc - self.scale * T.sign(u) * T.log1p(-T.abs(u))


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    t = T.abs(p.loc - q.loc)
    return (p.scale * T.exp(-t / p.scale) + t) / q.scale + T.log(q.scale / p.scale) - 1.0
