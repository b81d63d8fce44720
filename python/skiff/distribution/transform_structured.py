"""The transforms over whole events (Paddle's paddle.distribution): IndependentTransform,
ReshapeTransform, SoftmaxTransform, StackTransform, StickBreakingTransform."""
import math
from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ..nn import functional as F
from .transform import BIJECTION, OTHER, Space, Transform, sum_rightmost

__all__ = ["IndependentTransform", "ReshapeTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform"]


class IndependentTransform(Transform):
    """``base`` with its rightmost ``reinterpreted_batch_rank`` batch dims read as event dims:
    the log-det-Jacobian is summed over them."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: base must be a Transform, got "
                            f"{type(base).__name__}")
        if not isinstance(reinterpreted_batch_rank, int) or reinterpreted_batch_rank <= 0:
            raise ValueError(f"IndependentTransform: reinterpreted_batch_rank must be a "
                             f"positive int, got {reinterpreted_batch_rank!r}")
        self.base, self.reinterpreted_batch_rank = base, reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self.base._is_injective()

    def _forward(self, x):
        return self.base.forward(x)

    def _inverse(self, y):
        return self.base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self.base.forward_log_det_jacobian(x),
                             self.reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self.base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self.base.inverse_shape(shape)

    @property
    def _domain(self):
        return Space(self.base._domain.event_rank + self.reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return Space(self.base._codomain.event_rank + self.reinterpreted_batch_rank)


class ReshapeTransform(Transform):
    """Reshapes events of ``in_event_shape`` to ``out_event_shape`` (same size)."""

    _type = BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        for name, s in (("in_event_shape", in_event_shape),
                        ("out_event_shape", out_event_shape)):
            if not isinstance(s, Sequence) or not all(isinstance(d, int) for d in s):
                raise TypeError(f"ReshapeTransform: {name} must be a sequence of ints, got "
                                f"{s!r}")
        if int(np.prod(in_event_shape)) != int(np.prod(out_event_shape)):
            raise ValueError(f"ReshapeTransform: in_event_shape {list(in_event_shape)} and "
                             f"out_event_shape {list(out_event_shape)} differ in size")
        self.in_event_shape = tuple(in_event_shape)
        self.out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def _domain(self):
        return Space(len(self.in_event_shape))

    @property
    def _codomain(self):
        return Space(len(self.out_event_shape))

    @staticmethod
    def _swap(shape, old, new, where):
        shape = tuple(shape)
        if len(shape) < len(old) or shape[len(shape) - len(old):] != old:
            raise ValueError(f"ReshapeTransform.{where}: shape {list(shape)} does not end with "
                             f"{list(old)}")
        return shape[:len(shape) - len(old)] + new

    def _forward(self, x):
        return T.reshape(x, list(self._swap(x.shape, self.in_event_shape,
                                            self.out_event_shape, "forward")))

    def _inverse(self, y):
        return T.reshape(y, list(self._swap(y.shape, self.out_event_shape,
                                            self.in_event_shape, "inverse")))

    def _forward_shape(self, shape):
        return self._swap(shape, self.in_event_shape, self.out_event_shape, "forward_shape")

    def _inverse_shape(self, shape):
        return self._swap(shape, self.out_event_shape, self.in_event_shape, "inverse_shape")

    def _forward_log_det_jacobian(self, x):
        batch = list(x.shape)[:x.dim() - len(self.in_event_shape)]
        return T.zeros(batch, dtype=x.dtype)


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dim; not injective (inverse gives log(y))."""

    _type = OTHER
    _event_rank = 1

    def _forward(self, x):
        return F.softmax(x, axis=-1)

    def _inverse(self, y):
        return T.log(y)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("SoftmaxTransform.forward_shape: shape must have a dim")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """``transforms[i]`` applied to slice i along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, Sequence):
            raise TypeError(f"StackTransform: transforms must be a non-empty sequence, got "
                            f"{transforms!r}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("StackTransform: every element of transforms must be a Transform")
        if not isinstance(axis, int):
            raise TypeError(f"StackTransform: axis must be an int, got {type(axis).__name__}")
        self.transforms, self.axis = list(transforms), axis
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _map(self, v, method):
        if not -v.dim() <= self.axis < v.dim():
            raise ValueError(f"StackTransform: axis {self.axis} is out of range for a "
                             f"{v.dim()}-d input")
        if v.shape[self.axis] != len(self.transforms):
            raise ValueError(f"StackTransform: the input has {v.shape[self.axis]} entries "
                             f"along axis {self.axis}, not {len(self.transforms)}")
        parts = T.unstack(v, axis=self.axis)
        return T.stack([getattr(t, method)(p) for t, p in zip(self.transforms, parts)],
                       axis=self.axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")


class StickBreakingTransform(Transform):
    """R^K to the K-simplex in R^(K+1): z_i = sigmoid(x_i - log(K - i)) breaks off z_i of
    what is left of the stick; the last entry is the rest."""

    _type = BIJECTION
    _event_rank = 1

    @staticmethod
    def _log_offset(k, dtype):
        return T.to_tensor([math.log(k - i) for i in range(k)], dtype=dtype)

    def _forward(self, x):
        z = F.sigmoid(x - self._log_offset(x.shape[-1], x.dtype))
        left = T.cumprod(1.0 - z, dim=-1)
        ones = T.ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        return T.concat([z, ones], axis=-1) * T.concat([ones, left], axis=-1)

    def _inverse(self, y):
        head = y[..., :-1]
        rest = 1.0 - T.cumsum(head, axis=-1)
        return T.log(head) - T.log(rest) + self._log_offset(head.shape[-1], y.dtype)

    def _forward_log_det_jacobian(self, x):
        shifted = x - self._log_offset(x.shape[-1], x.dtype)
        y = self._forward(x)
        return T.sum(-shifted + F.log_sigmoid(shifted) + T.log(y[..., :-1]), axis=-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform.forward_shape: shape must not be empty")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform.inverse_shape: shape must not be empty")
        return (*shape[:-1], shape[-1] - 1)
