"""Gamma(concentration, rate) and Chi2(df) (Paddle's paddle.distribution.Gamma and Chi2), and
``standard_gamma``, the Gamma(alpha, 1) sampler that Dirichlet, Beta and StudentT draw from.

The sampler is Marsaglia and Tsang's rejection method written with existing random ops:
``_ROUNDS`` proposals per value are drawn at once and the first accepted one is kept (each
is accepted with probability above 0.95, so all of them fail with probability below
1e-10; the last proposal is kept then). Concentrations below 1 are boosted:
G(a) = G(a + 1) U^(1/a). The draw is a differentiable function of the concentration for
fixed noise, so gradients reach it along the accepted proposal (the pathwise part of the
gradient; the correction for the acceptance step is left out)."""
from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param, as_params
from .kl import register_kl

__all__ = ["Gamma", "Chi2", "standard_gamma"]

_ROUNDS = 8


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape and dtype (alpha > 0)."""
    shape, dtype = list(alpha.shape), alpha.dtype
    boosted = T.where(alpha < 1.0, alpha + 1.0, alpha)
    d = boosted - 1.0 / 3.0
    c = T.rsqrt(9.0 * d)
    z = T.randn([_ROUNDS] + shape, dtype=dtype)
    u = T.rand([_ROUNDS] + shape, dtype=dtype)
    v = T.pow(1.0 + c * z, 3.0)
    positive = v > 0
    safe_v = T.where(positive, v, T.ones_like(v))
    accept = T.logical_and(positive, T.log(u) < 0.5 * T.square(z) + d - d * safe_v
                           + d * T.log(safe_v))
    accept = T.logical_or(accept, T.arange(_ROUNDS).reshape([_ROUNDS] + [1] * len(shape))
                          == _ROUNDS - 1)
    first = T.argmax(T.cast(accept, "int32"), axis=0, keepdim=True)
    draw = d * T.squeeze(T.take_along_axis(safe_v, first, axis=0), axis=0)
    boost = T.pow(T.uniform(shape, dtype=dtype, min=1e-30, max=1.0), 1.0 / alpha)
    return T.where(alpha < 1.0, draw * boost, draw)


class Gamma(Distribution):
    """The gamma distribution: density rate^a x^(a-1) exp(-rate x) / Gamma(a) for x > 0,
    with a = ``concentration``."""

    def __init__(self, concentration, rate):
        concentration, rate = as_params(type(self).__name__, concentration=concentration,
                                        rate=rate)
        self.concentration, self.rate = T.broadcast_tensors([concentration, rate])
        self.dtype = self.concentration.dtype
        super().__init__(batch_shape=self.concentration.shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / T.square(self.rate)

    @property
    def stddev(self):
        return T.sqrt(self.variance)

    def log_prob(self, value):
        """a log(rate) + (a - 1) log(x) - rate x - lgamma(a)."""
        value = as_param(value, "value", f"{type(self).__name__}.log_prob", self.dtype)
        a = self.concentration
        return a * T.log(self.rate) + (a - 1.0) * T.log(value) - self.rate * value - T.lgamma(a)

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def entropy(self):
        """a - log(rate) + lgamma(a) + (1 - a) digamma(a)."""
        a = self.concentration
        return a - T.log(self.rate) + T.lgamma(a) + (1.0 - a) * T.digamma(a)

    def sample(self, shape=()):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """standard_gamma(concentration) / rate, broadcast to shape + batch_shape."""
        shape = list(self._extend_shape(self._check_shape(shape, "rsample")))
        return (standard_gamma(T.expand(self.concentration, shape))
                / T.expand(self.rate, shape))


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    def __init__(self, df):
        df = as_param(df, "df", "Chi2")
        if not bool(T.all(df > 0)):
            raise ValueError("Chi2: df must be positive")
        self.df = df
        super().__init__(df * 0.5, T.full_like(df, 0.5))


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    pa, pb, qa, qb = p.concentration, p.rate, q.concentration, q.rate
    return ((pa - qa) * T.digamma(pa) - T.lgamma(pa) + T.lgamma(qa)
            + qa * (T.log(pb) - T.log(qb)) + pa * (qb - pb) / pb)

