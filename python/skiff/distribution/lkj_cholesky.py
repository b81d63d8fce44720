"""LKJCholesky(dim, concentration) (Paddle's paddle.distribution.LKJCholesky): the LKJ law
over correlation matrices, det(C)^(eta - 1), carried to their lower Cholesky factors L.

Draws follow Lewandowski, Kurowicka and Joe (2009). The onion method builds L row by row:
row k is sqrt(y) u with y ~ Beta(k/2, eta + (d - 1 - k)/2) and u uniform on the unit
sphere of R^k, and its diagonal is sqrt(1 - y). The C-vine method draws the partial
correlations of tree level k from Beta(b, b) on (-1, 1), b = eta + (d - 2 - k)/2, and
L[i, k] = pi[i, k] * prod_{j<k} sqrt(1 - pi[i, j]^2) (the diagonal: the whole product).
"""
import math
import numbers

from .. import tensor as T
from ..autograd import no_grad
from ..framework import arguments
from .distribution import Distribution, as_param
from .gamma import standard_gamma

__all__ = ["LKJCholesky"]


def _beta(a, b):
    """Beta(a, b) draws of the broadcast shape of ``a`` and ``b``."""
    a, b = T.broadcast_tensors([a, b])
    x, y = standard_gamma(a), standard_gamma(b)
    return x / (x + y)


class LKJCholesky(Distribution):
    """Lower Cholesky factors of dim x dim correlation matrices with density proportional
    to prod_{k=1}^{d-1} L[k, k]^(d - 1 - k + 2 (eta - 1)); eta = ``concentration`` (> 0,
    a number or a Tensor of batch_shape). ``sample_method`` is 'onion' or 'cvine'."""

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"LKJCholesky: dim must be an int, got {dim!r}")
        if dim < 2:
            raise ValueError(f"LKJCholesky: dim must be at least 2, got {dim}")
        if sample_method not in ("onion", "cvine"):
            raise ValueError(f"LKJCholesky: sample_method must be 'onion' or 'cvine', got "
                             f"{sample_method!r}")
        if isinstance(concentration, numbers.Integral) and not isinstance(concentration, bool):
            concentration = float(concentration)
        concentration = as_param(concentration, "concentration", "LKJCholesky")
        with no_grad():
            if not bool(T.all(concentration > 0.0)):
                raise ValueError("LKJCholesky: concentration must be positive")
        self.dim, self.sample_method = int(dim), sample_method
        self.concentration = concentration
        self.dtype = concentration.dtype
        super().__init__(batch_shape=concentration.shape, event_shape=(self.dim, self.dim))

    def _eta(self, shape):
        """concentration broadcast to ``shape`` (sample + batch) with a trailing axis."""
        return T.unsqueeze(T.expand(self.concentration, list(shape)), -1)

    def _onion(self, shape):
        d = self.dim
        k = T.arange(1, d, dtype=self.dtype)
        y = _beta(k / 2.0 + T.zeros(list(shape) + [d - 1], self.dtype),
                  self._eta(shape) + (d - 1 - k) / 2.0)
        y = T.concat([T.zeros(list(shape) + [1], self.dtype), y], axis=-1)  # row 0: no entries
        z = T.tril(T.randn(list(shape) + [d, d], dtype=self.dtype), diagonal=-1)
        norm = T.sqrt(T.sum(T.square(z), axis=-1, keepdim=True))
        u = z / T.where(norm > 0.0, norm, T.ones_like(norm))
        w = T.unsqueeze(T.sqrt(y), -1) * u
        # A Beta draw that rounds to 1 would leave a zero diagonal: keep it the smallest
        # normal number above, so the factor stays a Cholesky factor.
        tiny = 1.1754943508222875e-38 if self.dtype.name == "float32" else 2.2250738585072014e-308
        return w + T.diag_embed(T.sqrt(T.clip(1.0 - y, min=tiny)))

    def _cvine(self, shape):
        d = self.dim
        k = T.arange(0, d, dtype=self.dtype)  # the tree level is the column
        b = self._eta(shape) + (d - 2 - k) / 2.0
        b = T.unsqueeze(T.clip(b, min=1e-6), -2) + T.zeros(list(shape) + [d, d], self.dtype)
        partial = T.tril(2.0 * _beta(b, b) - 1.0, diagonal=-1)
        kept = T.sqrt(T.clip(1.0 - T.square(partial), min=0.0))  # 1 on and above the diagonal
        ones = T.ones(list(shape) + [d, 1], self.dtype)
        before = T.cumprod(T.concat([ones, kept[..., :-1]], axis=-1), dim=-1)
        return partial * before + T.diag_embed(T.diagonal(before, axis1=-2, axis2=-1))

    def sample(self, sample_shape=()):
        """Cholesky factors of shape sample_shape + batch_shape + [dim, dim] (no gradient)."""
        shape = self._check_shape(sample_shape, "sample") + self.batch_shape
        with no_grad():
            return self._onion(shape) if self.sample_method == "onion" else self._cvine(shape)

    def _log_normalizer(self):
        """log of the integral of det(C)^(eta - 1) over d x d correlation matrices:
        sum_{i=1}^{d-1} [i/2 log(pi) + lgamma(eta + (d-1-i)/2) - lgamma(eta + (d-1)/2)]."""
        d, eta = self.dim, self.concentration
        total = d * (d - 1) / 4.0 * math.log(math.pi) - (d - 1) * T.lgamma(eta + (d - 1) / 2.0)
        for i in range(1, d):
            total = total + T.lgamma(eta + (d - 1 - i) / 2.0)
        return total

    def log_prob(self, value):
        """sum_{k=1}^{d-1} (d - 1 - k + 2 (eta - 1)) log L[k, k] minus the log normalizer;
        ``value`` [..., dim, dim] broadcasts against batch_shape."""
        value = as_param(value, "value", "LKJCholesky.log_prob", self.dtype)
        if value.ndim < 2 or list(value.shape[-2:]) != [self.dim, self.dim]:
            raise arguments.ArgumentError(f"LKJCholesky.log_prob: value must end in "
                                          f"[{self.dim}, {self.dim}], got {list(value.shape)}")
        if value.dtype != self.dtype:
            value = value.astype(self.dtype)
        d = self.dim
        diag = T.diagonal(value, axis1=-2, axis2=-1)[..., 1:]
        order = (2.0 * T.unsqueeze(self.concentration - 1.0, -1)
                 + (d - 1 - T.arange(1, d, dtype=self.dtype)))
        return T.sum(order * T.log(diag), axis=-1) - self._log_normalizer()
