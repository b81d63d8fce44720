"""StudentT(df, loc, scale) (Paddle's paddle.distribution.StudentT)."""
import math

from .. import tensor as T
from ..autograd import no_grad
from .distribution import Distribution, as_params
from .gamma import standard_gamma

__all__ = ["StudentT"]


class StudentT(Distribution):
    """loc + scale t with t Student's t of ``df`` degrees of freedom."""

    def __init__(self, df, loc, scale, name=None):
        self.name = name or "StudentT"
        df, loc, scale = as_params("StudentT", df=df, loc=loc, scale=scale)
        self.df, self.loc, self.scale = T.broadcast_tensors([df, loc, scale])
        self.dtype = self.df.dtype
        for arg, v in (("df", self.df), ("scale", self.scale)):
            if not hasattr(v, "block") and not bool(T.all(v >= 0)):
                raise ValueError(f"StudentT: every element of {arg} must be nonnegative")
        super().__init__(batch_shape=self.df.shape)

    @property
    def mean(self):
        """loc where df > 1, else nan."""
        return T.where(self.df > 1.0, self.loc, T.full_like(self.loc, math.nan))

    @property
    def variance(self):
        """scale^2 df / (df - 2) where df > 2, inf where 1 < df <= 2, else nan."""
        var = T.square(self.scale) * self.df / (self.df - 2.0)
        var = T.where(self.df > 2.0, var, T.full_like(var, math.inf))
        return T.where(self.df > 1.0, var, T.full_like(var, math.nan))

    def sample(self, shape=()):
        """loc + scale z / sqrt(chi2 / df), z ~ N(0, 1), chi2 ~ Gamma(df / 2, 1 / 2)."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError("StudentT.sample: shape must be a sequence")
        out = list(self._extend_shape(self._check_shape(tuple(shape), "sample")))
        with no_grad():
            df = T.expand(self.df, out)
            chi2 = 2.0 * standard_gamma(0.5 * df)
            z = T.randn(out, dtype=self.dtype)
            return self.loc + self.scale * z * T.rsqrt(chi2 / df)

    def log_prob(self, value):
        """lgamma((df+1)/2) - lgamma(df/2) - log(sqrt(df pi) scale)
        - (df+1)/2 log1p(((value - loc) / scale)^2 / df)."""
        df = self.df
        z = (value - self.loc) / self.scale
        return (T.lgamma(0.5 * (df + 1.0)) - T.lgamma(0.5 * df) - 0.5 * T.log(df * math.pi)
                - T.log(self.scale) - 0.5 * (df + 1.0) * T.log1p(T.square(z) / df))

    def prob(self, value):
        return T.exp(self.log_prob(value))

    def entropy(self):
        """(df+1)/2 (digamma((df+1)/2) - digamma(df/2)) + log(sqrt(df) B(df/2, 1/2))
        + log(scale)."""
        df = self.df
        half = 0.5 * df
        lbeta = T.lgamma(half) + math.lgamma(0.5) - T.lgamma(half + 0.5)
        return (0.5 * (df + 1.0) * (T.digamma(half + 0.5) - T.digamma(half))
                + 0.5 * T.log(df) + lbeta + T.log(self.scale))
