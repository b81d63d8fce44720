"""Beta(alpha, beta) (Paddle's paddle.distribution.Beta): densities, moments, entropy and
KL; draws X / (X + Y) from two gamma draws."""
from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .gamma import standard_gamma
from .kl import register_kl

__all__ = ["Beta"]


def _lbeta(a, b):
    return T.lgamma(a) + T.lgamma(b) - T.lgamma(a + b)


class Beta(Distribution):
    """The beta distribution on (0, 1): density x^(alpha-1) (1-x)^(beta-1) / B(alpha, beta)."""

    def __init__(self, alpha, beta):
        alpha, beta = as_param(alpha, "alpha", "Beta"), as_param(beta, "beta", "Beta")
        self.alpha, self.beta = T.broadcast_tensors([alpha, beta])
        self.dtype = self.alpha.dtype
        super().__init__(batch_shape=self.alpha.shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        total = self.alpha + self.beta
        return self.alpha * self.beta / (T.square(total) * (total + 1.0))

    def log_prob(self, value):
        """(alpha-1) log x + (beta-1) log(1-x) - log B(alpha, beta)."""
        value = as_param(value, "value", "Beta.log_prob", self.dtype)
        return ((self.alpha - 1.0) * T.log(value) + (self.beta - 1.0) * T.log1p(-value)
                - _lbeta(self.alpha, self.beta))

    def entropy(self):
        """log B(a, b) - (a-1) psi(a) - (b-1) psi(b) + (a+b-2) psi(a+b)."""
        a, b = self.alpha, self.beta
        return (_lbeta(a, b) - (a - 1.0) * T.digamma(a) - (b - 1.0) * T.digamma(b)
                + (a + b - 2.0) * T.digamma(a + b))

    def sample(self, shape=()):
        """Draws of shape + batch_shape (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """X / (X + Y), X ~ Gamma(alpha, 1), Y ~ Gamma(beta, 1) (gradients along the accepted
        proposals, as standard_gamma gives them)."""
        out = list(self._extend_shape(self._check_shape(tuple(shape), "rsample")))
        x = standard_gamma(T.expand(self.alpha, out))
        y = standard_gamma(T.expand(self.beta, out))
        return x / (x + y)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    pa, pb, qa, qb = p.alpha, p.beta, q.alpha, q.beta
    return (_lbeta(qa, qb) - _lbeta(pa, pb) + (pa - qa) * T.digamma(pa)
            + (pb - qb) * T.digamma(pb) + (qa + qb - pa - pb) * T.digamma(pa + pb))
