"""Categorical(logits) (Paddle's paddle.distribution.Categorical). As in Paddle, prob and
log_prob read ``logits`` as unnormalized probabilities (logits / sum), while sample,
entropy and kl_divergence read them as logits (softmax)."""
import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..framework import arguments
from ..nn import functional as F
from .distribution import Distribution, as_param
from .kl import register_kl

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over K categories, the last dim of ``logits``."""

    def __init__(self, logits, name=None):
        self.name = name or "Categorical"
        self.logits = as_param(logits, "logits", "Categorical")
        self.dtype = self.logits.dtype
        self._prob = self.logits / T.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(batch_shape=self.logits.shape[:-1])

    def sample(self, shape=()):
        """Category indices (int64) of shape + batch_shape, drawn from softmax(logits)."""
        shape = list(self._check_shape(shape, "sample"))
        n = int(np.prod(shape)) if shape else 1
        with no_grad():
            dims = list(self.logits.shape)
            logits = self.logits if len(dims) == 1 else T.reshape(
                self.logits, [int(np.prod(dims[:-1])), dims[-1]])
            index = T.multinomial(F.softmax(logits, axis=-1), n, True)
            if len(dims) > 1:
                index = T.transpose(index, [1, 0])
            return T.reshape(index, shape + dims[:-1])

    def _normalized(self):
        logits = self.logits - T.max(self.logits, axis=-1, keepdim=True)
        z = T.sum(T.exp(logits), axis=-1, keepdim=True)
        return logits, z

    def entropy(self):
        """-sum softmax(logits) log_softmax(logits) over the categories."""
        logits, z = self._normalized()
        prob = T.exp(logits) / z
        return -T.sum(prob * (logits - T.log(z)), axis=-1)

    def probs(self, value):
        """The probability (logits / sum(logits)) of the categories in ``value``."""
        arguments.tensor("Categorical.probs", "value", value)
        if len(self._prob.shape) == 1:
            flat = T.gather(self._prob, T.reshape(value, [-1]))
            return T.reshape(flat, list(value.shape))
        if len(value.shape) == 1:
            value = T.reshape(value, [1] * (len(self._prob.shape) - 1) + [-1])
        return T.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        """Same as probs(value)."""
        return self.probs(value)

    def log_prob(self, value):
        """log(probs(value))."""
        return T.log(self.probs(value))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    logits, z = p._normalized()
    other_logits, other_z = q._normalized()
    prob = T.exp(logits) / z
    return T.sum(prob * (logits - T.log(z) - other_logits + T.log(other_z)), axis=-1,
                 keepdim=True)
