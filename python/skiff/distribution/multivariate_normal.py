"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril) (Paddle's
paddle.distribution.MultivariateNormal), computed through the Cholesky factor L of the
covariance (Sigma = L L^T)."""
import math

from .. import linalg
from .. import tensor as T
from ..autograd import no_grad
from ..framework import dtype as dt
from .distribution import Distribution
from .kl import register_kl

__all__ = ["MultivariateNormal"]


def _solve_lower(scale_tril, b):
    """L^-1 b for lower-triangular L (broadcast over batch dims) and vectors b [..., k]."""
    shape = T.broadcast_shape(list(scale_tril.shape[:-2]), list(b.shape[:-1]))
    k = scale_tril.shape[-1]
    lower = T.expand(scale_tril, shape + [k, k])
    rhs = T.unsqueeze(T.expand(b, shape + [k]), -1)
    return T.squeeze(linalg.triangular_solve(lower, rhs, upper=False), -1)


def _half_log_det(scale_tril):
    return T.sum(T.log(T.diagonal(scale_tril, axis1=-2, axis2=-1)), axis=-1)


class MultivariateNormal(Distribution):
    """The normal law on R^k with mean ``loc`` [..., k]; exactly one of the covariance, the
    precision or the lower Cholesky factor of the covariance ([..., k, k]) is given."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        self.dtype = dt.get_default_dtype()
        if isinstance(loc, (float, int)):
            loc = T.to_tensor([float(loc)], dtype=self.dtype)
        else:
            self.dtype = dt.dtype_name(loc.dtype)
        if loc.dim() < 1:
            loc = T.reshape(loc, [1])
        given = [(n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix),
                                     ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: exactly one of covariance_matrix, "
                             "precision_matrix or scale_tril may be specified")
        name, matrix = given[0]
        if matrix.dim() < 2:
            raise ValueError(f"MultivariateNormal: {name} must be at least two-dimensional, "
                             f"with optional leading batch dimensions")
        matrix = T.cast(matrix, self.dtype)
        batch = list(T.broadcast_shape(list(matrix.shape[:-2]), list(loc.shape[:-1])))
        k = matrix.shape[-1]
        self.covariance_matrix = self.precision_matrix = self.scale_tril = None
        setattr(self, name, T.expand(matrix, batch + [k, k]))
        if name == "scale_tril":
            self._scale_tril = matrix
        elif name == "covariance_matrix":
            self._scale_tril = linalg.cholesky(matrix)
        else:
            self._scale_tril = linalg.cholesky(linalg.inv(matrix))
        self.loc = T.expand(loc, batch + [loc.shape[-1]])
        super().__init__(batch_shape=batch, event_shape=[self.loc.shape[-1]])

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance: row sums of L^2."""
        var = T.sum(T.square(self._scale_tril), axis=-1)
        return T.expand(var, list(self.batch_shape) + list(self.event_shape))

    @property
    def stddev(self):
        return T.sqrt(self.variance)

    def sample(self, shape=()):
        """Draws of shape + batch_shape + event_shape (no gradient)."""
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        """loc + L eps with eps ~ N(0, I): differentiable in loc and the matrix."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError("MultivariateNormal.rsample: shape must be a sequence")
        out = list(self._extend_shape(self._check_shape(tuple(shape), "rsample")))
        eps = T.randn(out, dtype=self.dtype)
        return self.loc + T.squeeze(T.matmul(self._scale_tril, T.unsqueeze(eps, -1)), -1)

    def log_prob(self, value):
        """-(k log(2 pi) + |L^-1 (value - loc)|^2) / 2 - log det L."""
        value = T.cast(value, self.dtype)
        k = self.event_shape[0]
        maha = T.sum(T.square(_solve_lower(self._scale_tril, value - self.loc)), axis=-1)
        return -0.5 * (k * math.log(2.0 * math.pi) + maha) - _half_log_det(self._scale_tril)

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def entropy(self):
        """k (1 + log(2 pi)) / 2 + log det L."""
        k = self.event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2.0 * math.pi)) + _half_log_det(self._scale_tril)
        return T.expand(h, list(self.batch_shape)) if self.batch_shape else h

    def kl_divergence(self, other):
        if tuple(self.batch_shape) != tuple(other.batch_shape) or \
                tuple(self.event_shape) != tuple(other.event_shape):
            raise ValueError("MultivariateNormal.kl_divergence: the two distributions need "
                             "the same batch_shape and event_shape")
        return _kl_mvn_mvn(self, other)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    k = p.event_shape[0]
    lp, lq = p._scale_tril, q._scale_tril
    shape = list(T.broadcast_shape(list(lp.shape), list(lq.shape)))
    # tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2
    m = linalg.triangular_solve(T.expand(lq, shape), T.expand(lp, shape), upper=False)
    trace = T.sum(T.square(m), axis=[-2, -1])
    maha = T.sum(T.square(_solve_lower(lq, q.loc - p.loc)), axis=-1)
    return 0.5 * (trace + maha - k) + _half_log_det(lq) - _half_log_det(lp)
