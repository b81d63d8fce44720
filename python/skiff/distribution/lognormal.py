"""LogNormal(loc, scale) (Paddle's paddle.distribution.LogNormal): exp of Normal(loc, scale),
a TransformedDistribution with moments, entropy and KL in closed form."""
import math

from .. import tensor as T
from .kl import register_kl
from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """y = exp(x) with x ~ Normal(loc, scale)."""

    def __init__(self, loc, scale):
        self._normal = Normal(loc, scale)
        self.loc, self.scale = self._normal.loc, self._normal.scale
        self.dtype = self._normal.dtype
        super().__init__(self._normal, [ExpTransform()])

    @property
    def mean(self):
        """exp(loc + scale^2 / 2)."""
        return T.exp(self.loc + T.square(self.scale) / 2.0)

    @property
    def variance(self):
        """(exp(scale^2) - 1) exp(2 loc + scale^2)."""
        var = T.square(self.scale)
        return T.expm1(var) * T.exp(2.0 * self.loc + var)

    def entropy(self):
        """The normal's entropy + loc."""
        return 0.5 + 0.5 * math.log(2.0 * math.pi) + T.log(self.scale) + self.loc

    def probs(self, value):
        return T.exp(self.log_prob(value))

    def kl_divergence(self, other):
        return _kl_lognormal_lognormal(self, other)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._normal.kl_divergence(q._normal)
