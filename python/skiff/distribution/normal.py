"""Normal(loc, scale) (Paddle's paddle.distribution.Normal)."""
import math

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution with mean ``loc`` and standard deviation ``scale`` (numbers,
    lists, arrays or Tensors, broadcast against each other)."""

    def __init__(self, loc, scale, name=None):
        self.name = name or "Normal"
        loc, scale = as_param(loc, "loc", "Normal"), as_param(scale, "scale", "Normal")
        self.loc, self.scale = T.broadcast_tensors([loc, scale])
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return T.square(self.scale)

    @property
    def stddev(self):
        return self.scale

    def sample(self, shape=(), seed=0):
        """Draws shape + batch_shape values (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """loc + scale * eps with eps ~ N(0, 1): differentiable in loc and scale."""
        shape = self._extend_shape(self._check_shape(shape, "rsample"))
        eps = T.randn(list(shape), dtype=self.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-(value - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi))."""
        value = as_param(value, "value", "Normal.log_prob", self.dtype)
        var = T.square(self.scale)
        return (-T.square(value - self.loc) / (2.0 * var) - T.log(self.scale)
                - math.log(math.sqrt(2.0 * math.pi)))

    def entropy(self):
        """0.5 + 0.5 log(2 pi) + log(scale)."""
        return 0.5 + 0.5 * math.log(2.0 * math.pi) + T.log(self.scale)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = T.square(p.scale / q.scale)
    t1 = T.square((p.loc - q.loc) / q.scale)
    return 0.5 * (var_ratio + t1 - 1.0 - T.log(var_ratio))
