"""Bernoulli(probs) (Paddle's paddle.distribution.Bernoulli)."""
import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..nn import functional as F
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """The Bernoulli distribution: 1 with probability ``probs`` (clipped to [eps, 1 - eps]),
    else 0; ``logits`` holds log(p / (1 - p))."""

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        probs = as_param(probs, "probs", "Bernoulli")
        self.dtype = probs.dtype
        eps = float(np.finfo(str(self.dtype).replace("skiff.", "")).eps)
        self.probs = T.clip(probs, eps, 1.0 - eps)
        self.logits = T.log(self.probs) - T.log1p(-self.probs)
        super().__init__(batch_shape=self.probs.shape)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1.0 - self.probs)

    def sample(self, shape=()):
        """Draws 0/1 values of shape + batch_shape (no gradient)."""
        shape = self._extend_shape(self._check_shape(shape, "sample"))
        with no_grad():
            return T.bernoulli(T.expand(self.probs, list(shape)))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (Gumbel-sigmoid) draws as logits, as Paddle returns them:
        (logit(u) + logits) / temperature with u ~ U[0, 1); differentiable in probs."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        if not isinstance(temperature, float):
            raise TypeError(f"Bernoulli.rsample: temperature must be a float, got "
                            f"{type(temperature).__name__}")
        u = T.rand(list(shape), dtype=self.dtype)
        probs = T.expand(self.probs, list(shape))
        return ((T.log(u) - T.log1p(-u)) + (T.log(probs) - T.log1p(-probs))) / temperature

    def cdf(self, value):
        """0 below 0, 1 - probs on [0, 1), 1 from 1 on."""
        value = as_param(value, "value", "Bernoulli.cdf", self.dtype)
        probs, value = T.broadcast_tensors([self.probs, value])
        return T.where(value < 0, T.zeros_like(probs),
                       T.where(value < 1, 1.0 - probs, T.ones_like(probs)))

    def log_prob(self, value):
        """value log(p) + (1 - value) log(1 - p), through the logits."""
        value = as_param(value, "value", "Bernoulli.log_prob", self.dtype)
        logits, value = T.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """-p log(p) - (1 - p) log(1 - p)."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    a, b = p.logits, q.logits
    pa, one_minus_pa = F.sigmoid(a), F.sigmoid(-a)
    return ((-F.softplus(-a)) * pa - (-F.softplus(-b)) * pa
            + (-F.softplus(a)) * one_minus_pa - (-F.softplus(b)) * one_minus_pa)
