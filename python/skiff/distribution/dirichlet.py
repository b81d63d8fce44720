"""Dirichlet(concentration) (Paddle's paddle.distribution.Dirichlet): the law on the simplex
of the last dim of ``concentration``, drawn as normalized gamma variates."""
import math

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution
from .gamma import standard_gamma
from .kl import register_kl

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """density prod x_i^(a_i - 1) / B(a) on the simplex, a = ``concentration`` [..., k]."""

    def __init__(self, concentration):
        if concentration.dim() < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("Dirichlet: concentration must be at least one-dimensional and "
                             "not empty")
        self.concentration = concentration
        self.dtype = concentration.dtype
        super().__init__(batch_shape=concentration.shape[:-1],
                         event_shape=concentration.shape[-1:])

    def _total(self):
        return T.sum(self.concentration, axis=-1, keepdim=True)

    @property
    def mean(self):
        return self.concentration / self._total()

    @property
    def variance(self):
        total = self._total()
        return self.concentration * (total - self.concentration) / (
            T.square(total) * (total + 1.0))

    def sample(self, shape=()):
        """Draws of shape + batch_shape + event_shape: gamma draws over their sum."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """Gamma(a_i, 1) draws over their sum (gradients along the accepted proposals, as
        standard_gamma gives them)."""
        out = list(self._extend_shape(self._check_shape(tuple(shape), "sample")))
        g = standard_gamma(T.expand(self.concentration, out))
        return g / T.sum(g, axis=-1, keepdim=True)

    def log_prob(self, value):
        """sum (a_i - 1) log x_i + lgamma(sum a) - sum lgamma(a_i)."""
        a = self.concentration
        return (T.sum((a - 1.0) * T.log(value), axis=-1) + T.lgamma(T.sum(a, axis=-1))
                - T.sum(T.lgamma(a), axis=-1))

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def entropy(self):
        """log B(a) + (a0 - k) digamma(a0) - sum (a_i - 1) digamma(a_i)."""
        a = self.concentration
        k = a.shape[-1]
        a0 = T.sum(a, axis=-1)
        return (T.sum(T.lgamma(a), axis=-1) - T.lgamma(a0) + (a0 - k) * T.digamma(a0)
                - T.sum((a - 1.0) * T.digamma(a), axis=-1))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0, b0 = T.sum(a, axis=-1), T.sum(b, axis=-1)
    return (T.lgamma(a0) - T.lgamma(b0) - T.sum(T.lgamma(a) - T.lgamma(b), axis=-1)
            + T.sum((a - b) * (T.digamma(a) - T.unsqueeze(T.digamma(a0), -1)), axis=-1))
