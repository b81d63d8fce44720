"""TransformedDistribution(base, transforms) (Paddle's
paddle.distribution.TransformedDistribution): the law of y = t_n(...t_1(x)) for x drawn
from ``base``; log_prob by the change of variables."""
from collections.abc import Sequence

from .distribution import Distribution
from .independent import Independent
from .transform import ChainTransform, Transform, sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base`` pushed through ``transforms`` (applied first to last)."""

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: base must be a Distribution, got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, Sequence):
            raise TypeError(f"TransformedDistribution: transforms must be a sequence, got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("TransformedDistribution: every element of transforms must be a "
                            "Transform")
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        domain_rank = chain._domain.event_rank
        if len(base_shape) < domain_rank:
            raise ValueError(f"TransformedDistribution: the base's shape {list(base_shape)} has "
                             f"fewer dims than the transforms' event rank {domain_rank}")
        if domain_rank > len(base.event_shape):
            base = Independent(base, domain_rank - len(base.event_shape))
        self._base, self._transforms = base, list(transforms)
        shape = tuple(chain.forward_shape(base_shape))
        event_rank = max(chain._codomain.event_rank,
                         len(base.event_shape) + chain._codomain.event_rank - domain_rank)
        cut = len(shape) - event_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def base(self):
        return self._base

    @property
    def transforms(self):
        return self._transforms

    def sample(self, shape=()):
        """base.sample(shape) pushed through the transforms."""
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        """base.rsample(shape) pushed through the transforms (differentiable)."""
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """base.log_prob(x) - sum of each transform's log|det J| on the way from x to value."""
        log_prob, y = 0.0, value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._domain.event_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y),
                                        event_rank - len(self._base.event_shape))

    def prob(self, value):
        return self.log_prob(value).exp()


Transform.distribution_type = TransformedDistribution
