"""Transform, the base of Paddle's paddle.distribution transforms, ChainTransform (the
composition the base builds with ``t1(t2)``) and the elementwise transforms: AbsTransform,
AffineTransform, ExpTransform, PowerTransform, SigmoidTransform, TanhTransform.

A transform maps x to y = f(x) over events of ``_domain.event_rank`` dims and gives
log|det df/dx| per event (forward_log_det_jacobian) where f is injective."""
import math
from collections.abc import Sequence

from .. import tensor as T
from ..nn import functional as F
from .distribution import Distribution

__all__ = ["Transform", "ChainTransform", "AbsTransform", "AffineTransform", "ExpTransform",
           "PowerTransform", "SigmoidTransform", "TanhTransform"]

BIJECTION, INJECTION, SURJECTION, OTHER = "bijection", "injection", "surjection", "other"


class Space:
    """Where a transform's input or output lives: its event rank (0: elementwise)."""

    def __init__(self, event_rank=0):
        self.event_rank = event_rank


def is_tensor(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (list, tuple))


def sum_rightmost(value, n):
    """``value`` summed over its last ``n`` dims."""
    return T.sum(value, axis=list(range(-n, 0))) if n > 0 else value


class Transform:
    """y = f(x); ``t(x)`` for a Tensor is forward(x), for a Distribution the transformed
    distribution, for a Transform the chain t(other(x))."""

    _type = INJECTION
    # TransformedDistribution, set by its module, which builds on this one.
    distribution_type = None

    def __init__(self):
        pass

    @classmethod
    def _is_injective(cls):
        return cls._type in (BIJECTION, INJECTION)

    def __call__(self, input):
        if isinstance(input, Distribution):
            return Transform.distribution_type(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check(self, v, space, method):
        if not is_tensor(v):
            raise TypeError(f"{type(self).__name__}.{method}: expected a Tensor, got "
                            f"{type(v).__name__}")
        if v.dim() < space.event_rank:
            raise ValueError(f"{type(self).__name__}.{method}: the input has {v.dim()} dims, "
                             f"fewer than the event rank {space.event_rank}")
        return v

    def forward(self, x):
        """y = f(x)."""
        return self._forward(self._check(x, self._domain, "forward"))

    def inverse(self, y):
        """x = f^-1(y)."""
        return self._inverse(self._check(y, self._codomain, "inverse"))

    def forward_log_det_jacobian(self, x):
        """log|det J_f(x)|, one value per event."""
        self._check(x, self._domain, "forward_log_det_jacobian")
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__}.forward_log_det_jacobian: the "
                                      f"transform is not injective")
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        return -self._inverse_log_det_jacobian(self.forward(x))

    def inverse_log_det_jacobian(self, y):
        """log|det J_f^-1(y)| = -forward_log_det_jacobian(f^-1(y))."""
        self._check(y, self._codomain, "inverse_log_det_jacobian")
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        return -self._forward_log_det_jacobian(self._inverse(y))

    def forward_shape(self, shape):
        """The shape of forward(x) for x of ``shape``."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.forward_shape: shape must be a sequence, "
                            f"got {type(shape).__name__}")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of inverse(y) for y of ``shape``."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.inverse_shape: shape must be a sequence, "
                            f"got {type(shape).__name__}")
        return self._inverse_shape(shape)

    # the event rank of x and of y (0: elementwise); a subclass whose spaces differ or
    # depend on its parts overrides _domain / _codomain
    _event_rank = 0

    @property
    def _domain(self):
        return Space(self._event_rank)

    @property
    def _codomain(self):
        return Space(self._event_rank)

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} does not define forward")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} does not define inverse")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class ChainTransform(Transform):
    """The composition: forward applies ``transforms`` first to last."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError(f"ChainTransform: transforms must be a sequence, got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("ChainTransform: every element of transforms must be a Transform")
        self.transforms = list(transforms)
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        total, rank = 0.0, self._domain.event_rank
        for t in self.transforms:
            total = total + sum_rightmost(t.forward_log_det_jacobian(x),
                                          rank - t._domain.event_rank)
            x = t.forward(x)
            rank += t._codomain.event_rank - t._domain.event_rank
        return total

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self):
        if not self.transforms:
            return Space(0)
        rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank -= t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._domain.event_rank)
        return Space(rank)

    @property
    def _codomain(self):
        if not self.transforms:
            return Space(0)
        rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank += t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._codomain.event_rank)
        return Space(rank)


class AbsTransform(Transform):
    """y = |x|; not injective: inverse(y) is the pair (-y, y)."""

    _type = SURJECTION

    def _forward(self, x):
        return T.abs(x)

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = T.zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale x (``loc`` and ``scale`` Tensors)."""

    _type = BIJECTION

    def __init__(self, loc, scale):
        for name, v in (("loc", loc), ("scale", scale)):
            if not is_tensor(v):
                raise TypeError(f"AffineTransform: {name} must be a Tensor, got "
                                f"{type(v).__name__}")
        self.loc, self.scale = loc, scale
        super().__init__()

    def _forward(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self.scale))

    def _forward_shape(self, shape):
        return tuple(T.broadcast_shape(T.broadcast_shape(list(shape), list(self.loc.shape)),
                                       list(self.scale.shape)))

    _inverse_shape = _forward_shape


class ExpTransform(Transform):
    """y = exp(x)."""

    _type = BIJECTION

    def _forward(self, x):
        return T.exp(x)

    def _inverse(self, y):
        return T.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """y = x^power on x > 0 (``power`` a Tensor)."""

    _type = BIJECTION

    def __init__(self, power):
        if not is_tensor(power):
            raise TypeError(f"PowerTransform: power must be a Tensor, got "
                            f"{type(power).__name__}")
        self.power = power
        super().__init__()

    def _forward(self, x):
        return T.pow(x, self.power)

    def _inverse(self, y):
        return T.pow(y, 1.0 / self.power)

    def _forward_log_det_jacobian(self, x):
        return T.log(T.abs(self.power * T.pow(x, self.power - 1.0)))

    def _forward_shape(self, shape):
        return tuple(T.broadcast_shape(list(shape), list(self.power.shape)))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x))."""

    _type = BIJECTION

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return T.log(y) - T.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh(x)."""

    _type = BIJECTION

    def _forward(self, x):
        return T.tanh(x)

    def _inverse(self, y):
        return T.atanh(y)

    def _forward_log_det_jacobian(self, x):
        """log(1 - tanh(x)^2) written as 2 (log 2 - x - softplus(-2x)), stable for large x."""
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
