"""Drawing integer-valued distributions by inversion over a window of their support, and
entropies summed over it (Poisson and Binomial, which have no sampling op of their own)."""
from .. import tensor as T

__all__ = ["sample_by_inversion", "entropy_over_support"]


def sample_by_inversion(log_pmf, low, width, shape, dtype):
    """Draws of ``shape``: low + the number of k in [low, low + width) whose cumulative
    mass is below u ~ U[0, 1). ``log_pmf(k)`` takes k of shape [width] + shape; the mass
    outside the window is taken as zero."""
    k = low + T.arange(width, dtype=dtype).reshape([width] + [1] * len(shape))
    cdf = T.cumsum(T.exp(log_pmf(k)), axis=0)
    u = T.rand(shape, dtype=dtype)
    return low + T.sum(T.cast(cdf < u, dtype), axis=0)


def entropy_over_support(log_prob, values):
    """-sum p log p over ``values`` (the support along axis 0)."""
    lp = log_prob(values)
    return -T.sum(T.exp(lp) * lp, axis=0)
