"""Uniform(low, high) (Paddle's paddle.distribution.Uniform)."""
from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on [low, high) (broadcast against each other)."""

    def __init__(self, low, high, name=None):
        self.name = name or "Uniform"
        low, high = as_param(low, "low", "Uniform"), as_param(high, "high", "Uniform")
        self.low, self.high = T.broadcast_tensors([low, high])
        self.dtype = self.low.dtype
        super().__init__(batch_shape=self.low.shape)

    @property
    def mean(self):
        return (self.high + self.low) / 2.0

    @property
    def variance(self):
        return T.square(self.high - self.low) / 12.0

    def sample(self, shape=(), seed=0):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """low + (high - low) * u with u ~ U[0, 1): differentiable in low and high."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        u = T.rand(list(shape), dtype=self.dtype)
        return self.low + u * (self.high - self.low)

    def _inside(self, value):
        lb = T.cast(self.low < value, self.dtype)
        ub = T.cast(value < self.high, self.dtype)
        return lb * ub

    def log_prob(self, value):
        """-log(high - low) inside the support, -inf outside."""
        value = as_param(value, "value", "Uniform.log_prob", self.dtype)
        return T.log(self._inside(value)) - T.log(self.high - self.low)

    def prob(self, value):
        """1 / (high - low) inside the support, 0 outside."""
        value = as_param(value, "value", "Uniform.prob", self.dtype)
        return self._inside(value) / (self.high - self.low)

    def entropy(self):
        """log(high - low)."""
        return T.log(self.high - self.low)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    return T.log((q.high - q.low) / (p.high - p.low))
