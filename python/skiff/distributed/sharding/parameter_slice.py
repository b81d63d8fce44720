"""One parameter under sharding stage 3: each rank of the group keeps one slice of its
flattened values (zero-padded to a multiple of the group size), and the parameter itself
holds its whole value only between ``gather()`` and ``release()``.

The slice is a Parameter of its own, named like the parameter, with its learning-rate
factor, regularizer and need_clip: the optimizer updates it in the parameter's place."""
import math

import numpy as np

from ...autograd import no_grad
from ...framework.param import Parameter
from ...tensor.creation import empty, zeros
from ...tensor.manipulation import concat, reshape, split
from ..collective import ReduceOp, all_gather, reduce_scatter

__all__ = ["ParameterSlice"]


class ParameterSlice:
    """``param`` cut over ``group``: ``slice`` holds this rank's part (at least two
    elements, so its optimizer state never looks like a per-parameter scalar such as
    Adam's beta powers); the parameter is released at construction."""

    @no_grad()
    def __init__(self, param, group):
        self.param = param
        self.group = group
        self.shape = list(param.shape)
        self.numel = int(param.size)
        self.length = max(2, math.ceil(self.numel / group.nranks))
        start = group.rank * self.length
        flat = self._padded(param)
        part = flat[start:start + self.length].clone()
        self.slice = Parameter(part, name=param.name, trainable=True,
                               optimize_attr=dict(param.optimize_attr),
                               regularizer=param.regularizer, need_clip=param.need_clip)
        self.gathered = True
        self.release()

    def _padded(self, value):
        flat = reshape(value, [-1])
        missing = self.length * self.group.nranks - self.numel
        return concat([flat, zeros([missing], flat.dtype)]) if missing else flat

    @no_grad()
    def whole(self):
        """The parameter's whole value, gathered from the slices (a new tensor)."""
        parts = []
        all_gather(parts, self.slice, self.group)
        return reshape(concat(parts)[:self.numel], self.shape)

    def gather(self):
        """Gives the parameter its whole value (nothing when it holds it already)."""
        if not self.gathered:
            self.param._set_value(self.whole())
            self.gathered = True

    def release(self):
        """Frees the parameter's whole value (it becomes an empty tensor)."""
        if self.gathered:
            self.param._set_value(empty([0], self.param.dtype))
            self.gathered = False

    @no_grad()
    def reduce_gradient(self, grad):
        """This rank's slice of ``grad`` (the parameter's whole gradient) averaged over the
        group."""
        part = zeros([self.length], grad.dtype)
        reduce_scatter(part, split(self._padded(grad), self.group.nranks), ReduceOp.AVG,
                       self.group)
        return part

    def cut(self, value):
        """This rank's slice (a numpy array) of ``value``, a Tensor or array shaped like
        the parameter: what a whole-model checkpoint gives this rank."""
        flat = np.asarray(value.numpy() if hasattr(value, "numpy") else value).reshape(-1)
        padded = np.zeros(self.length * self.group.nranks, flat.dtype)
        padded[:flat.size] = flat
        start = self.group.rank * self.length
        return padded[start:start + self.length]
