"""Cauchy(loc, scale) (Paddle's paddle.distribution.Cauchy): no mean or variance; density,
cdf, entropy, KL and reparameterized draws."""
import math
import numbers

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_params
from .kl import register_kl

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution: density 1 / (pi scale (1 + ((x - loc) / scale)^2))."""

    def __init__(self, loc, scale, name=None):
        self.name = name or "Cauchy"
        for arg, value in (("loc", loc), ("scale", scale)):
            if isinstance(value, bool) or not (isinstance(value, numbers.Real)
                                               or hasattr(value, "shape")):
                raise TypeError(f"Cauchy: {arg} must be a real number or a Tensor, got "
                                f"{type(value).__name__}")
        loc, scale = as_params("Cauchy", loc=loc, scale=scale)
        self.loc, self.scale = T.broadcast_tensors([loc, scale])
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape)

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        """loc + scale tan(pi (u - 1/2)) with u ~ U[0, 1): differentiable in loc and scale."""
        shape = list(self._extend_shape(self._check_shape(tuple(shape), "rsample")))
        u = T.rand(shape, dtype=self.dtype)
        return T.expand(self.loc, shape) + T.expand(self.scale, shape) * T.tan(
            math.pi * (u - 0.5))

    def _value(self, value, method):
        if not hasattr(value, "shape"):
            raise TypeError(f"Cauchy.{method}: value must be a Tensor, got "
                            f"{type(value).__name__}")
        return value

    def log_prob(self, value):
        """-log(pi) - log(scale) - log1p(((value - loc) / scale)^2)."""
        value = self._value(value, "log_prob")
        return (-math.log(math.pi) - T.log(self.scale)
                - T.log1p(T.square((value - self.loc) / self.scale)))

    def prob(self, value):
        return T.exp(self.log_prob(self._value(value, "prob")))

    def cdf(self, value):
        """atan((value - loc) / scale) / pi + 1/2."""
        value = self._value(value, "cdf")
        return T.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def entropy(self):
        """log(4 pi) + log(scale)."""
        return math.log(4.0 * math.pi) + T.log(self.scale)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (T.log(T.square(p.scale + q.scale) + T.square(p.loc - q.loc))
            - T.log(4.0 * p.scale * q.scale))
