"""Independent(base, reinterpreted_batch_rank) (Paddle's paddle.distribution.Independent):
the rightmost batch dims of ``base`` read as event dims, so log_prob and entropy sum
over them."""
from .distribution import Distribution
from .transform import sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """``base`` with ``reinterpreted_batch_rank`` (1..len(base.batch_shape)) batch dims moved
    into the event."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: base must be a Distribution, got "
                            f"{type(base).__name__}")
        if not (isinstance(reinterpreted_batch_rank, int)
                and 0 < reinterpreted_batch_rank <= len(base.batch_shape)):
            raise ValueError(f"Independent: reinterpreted_batch_rank must be in "
                             f"(0, {len(base.batch_shape)}], got {reinterpreted_batch_rank!r}")
        self._base, self._rank = base, reinterpreted_batch_rank
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=base.batch_shape[:cut],
                         event_shape=base.batch_shape[cut:] + base.event_shape)

    @property
    def base(self):
        return self._base

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def rsample(self, shape=()):
        return self._base.rsample(shape)

    def log_prob(self, value):
        """base.log_prob summed over the reinterpreted dims."""
        return sum_rightmost(self._base.log_prob(value), self._rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        """base.entropy summed over the reinterpreted dims."""
        return sum_rightmost(self._base.entropy(), self._rank)
