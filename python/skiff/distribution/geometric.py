"""Geometric(probs) (Paddle's paddle.distribution.Geometric): the number of failures before
the first success, k = 0, 1, 2, ..., each trial succeeding with probability ``probs``."""
import numbers

import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Geometric"]


class Geometric(Distribution):
    """P(k) = (1 - p)^k p for k = 0, 1, ...; ``probs`` in (0, 1]."""

    def __init__(self, probs):
        if isinstance(probs, bool) or not (isinstance(probs, numbers.Real)
                                           or hasattr(probs, "shape")):
            raise TypeError(f"Geometric: probs must be a real number or a Tensor, got "
                            f"{type(probs).__name__}")
        self.probs = as_param(probs, "probs", "Geometric",
                              "float32" if isinstance(probs, numbers.Real) else None)
        if not hasattr(self.probs, "block") and not bool(
                T.all(T.logical_and(self.probs > 0, self.probs <= 1))):
            raise ValueError("Geometric: probs must be in (0, 1]")
        self.dtype = self.probs.dtype
        super().__init__(batch_shape=self.probs.shape)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        return T.sqrt(self.variance)

    def _k(self, k, method):
        if isinstance(k, bool) or not (isinstance(k, numbers.Integral) or hasattr(k, "shape")):
            raise TypeError(f"Geometric.{method}: k must be an int or a Tensor, got "
                            f"{type(k).__name__}")
        return k

    def pmf(self, k):
        """(1 - p)^k p."""
        return T.pow(1.0 - self.probs, self._k(k, "pmf")) * self.probs

    def log_pmf(self, k):
        """log(pmf(k))."""
        return T.log(self.pmf(self._k(k, "log_pmf")))

    def prob(self, value):
        return self.pmf(value)

    def log_prob(self, value):
        """k log(1 - p) + log(p)."""
        k = self._k(value, "log_prob")
        return k * T.log1p(-self.probs) + T.log(self.probs)

    def cdf(self, k):
        """1 - (1 - p)^(k + 1)."""
        return 1.0 - T.pow(1.0 - self.probs, self._k(k, "cdf") + 1)

    def sample(self, shape=()):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """floor(log(u) / log(1 - p)) with u ~ U(tiny, 1), as a float tensor."""
        shape = list(self._extend_shape(self._check_shape(tuple(shape), "rsample")))
        u = T.uniform(shape, dtype=self.dtype, min=float(np.finfo("float32").tiny), max=1.0)
        return T.floor(T.log(u) / T.log1p(-self.probs))

    def entropy(self):
        """-((1 - p) log(1 - p) + p log(p)) / p."""
        p = self.probs
        return -((1.0 - p) * T.log(1.0 - p) + p * T.log(p)) / p


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """Paddle's value: p log(p / q) + (1 - p) log((1 - p) / (1 - q)), which is the KL of one
    trial (Bernoulli); the KL of the geometric laws is this divided by p."""
    a, b = p.probs, q.probs
    return a * T.log(a / b) + (1.0 - a) * T.log((1.0 - a) / (1.0 - b))
