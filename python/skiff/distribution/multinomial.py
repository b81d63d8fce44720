"""Multinomial(total_count, probs) (Paddle's paddle.distribution.Multinomial): counts of
``total_count`` categorical draws over the last dim of ``probs``."""
from .. import _C
from .. import tensor as T
from ..nn import functional as F
from .categorical import Categorical
from .distribution import Distribution, as_param

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts over K categories from ``total_count`` draws with probabilities ``probs``
    (normalized over the last dim)."""

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, int) or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be an int >= 1, got "
                             f"{total_count!r}")
        probs = as_param(probs, "probs", "Multinomial")
        if len(probs.shape) < 1:
            raise ValueError("Multinomial: probs must have at least one dim")
        self.probs = probs / T.sum(probs, axis=-1, keepdim=True)
        self.total_count = total_count
        self.dtype = self.probs.dtype
        self._categorical = Categorical(T.log(probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        return self.probs * float(self.total_count)

    @property
    def variance(self):
        return float(self.total_count) * self.probs * (1.0 - self.probs)

    def log_prob(self, value):
        """log n! - sum log v_k! + sum v_k log p_k (0 log 0 = 0)."""
        value = as_param(value, "value", "Multinomial.log_prob", self.dtype)
        if value.dtype != self.dtype:
            value = T.cast(value, self.dtype)
        logits, value = T.broadcast_tensors([T.log(self.probs), value])
        logits = T.where((value == 0.0) & T.isinf(logits), T.zeros_like(logits), logits)
        return (T.lgamma(T.sum(value, axis=-1) + 1.0) - T.sum(T.lgamma(value + 1.0), axis=-1)
                + T.sum(value * logits, axis=-1))

    def sample(self, shape=()):
        """Count vectors of shape + batch_shape + [K] (no gradient)."""
        shape = list(self._check_shape(shape, "sample"))
        draws = self._categorical.sample([self.total_count] + shape)
        k = self.probs.shape[-1]
        return T.sum(T.cast(F.one_hot(draws, k), self.dtype), axis=0)

    def rsample(self, shape=()):
        """Not available: multinomial counts are discrete."""
        raise _C.Error("Multinomial.rsample: counts are discrete and have no "
                       "reparameterized sample; use sample()")

    def entropy(self):
        """n H(categorical) - log n! + sum over k of E[log (count_k)!] (binomial marginals)."""
        n = float(self.total_count)
        support = T.reshape(T.arange(1, self.total_count + 1, dtype=self.dtype),
                            [-1] + [1] * len(self.probs.shape))
        logits = T.log(self.probs) - T.log1p(-self.probs)
        norm = (n * (T.clip(logits, min=0.0) + logits - T.clip(logits, max=0.0)) / 2.0
                + n * T.log1p(T.exp(-T.abs(logits))) - T.lgamma(T.full([], n + 1.0, self.dtype)))
        logpmf = (support * logits - T.lgamma(support + 1.0) - T.lgamma(n - support + 1.0)
                  - norm)
        return (n * self._categorical.entropy() - T.lgamma(T.full([], n + 1.0, self.dtype))
                + T.sum(T.exp(logpmf) * T.lgamma(support + 1.0), axis=[0, -1]))
