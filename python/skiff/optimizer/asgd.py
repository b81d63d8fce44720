"""ASGD (Paddle semantics): stochastic average gradient over the last batch_num batches.
Accumulators as Paddle's: d (the running sum of the stored gradients), y ([batch_num] +
the parameter's shape: one stored gradient per batch slot) and m (int64 step count)."""
from .. import _C_ops
import numbers

from ..framework.dtype import dtype_name
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """i = m % batch_num; d = d - y[i] + grad; y[i] = grad; m += 1;
    param -= lr * d / min(m, batch_num). weight_decay adds its term to grad first."""

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if isinstance(batch_num, bool) or not isinstance(batch_num, numbers.Integral) \
                or batch_num <= 0:
            raise ValueError(f"ASGD: batch_num must be a positive int, got {batch_num!r}")
        self._batch_num = int(batch_num)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("d", param, 0.0)
        self._add_accumulator("y", param, 0.0, shape=[self._batch_num] + list(param.shape))
        self._add_accumulator("m", param, 0.0, shape=[1], dtype="int64")

    def _append_optimize_op(self, param, grad, lr, group):
        d, ys, m = self._accumulators_of(param, ("d", "y", "m"))
        grad = self._dense_grad(param, grad)
        shape = [int(s) for s in param.shape]
        count = _C_ops.fill_constant(shape=[1], value=float(self._batch_num), dtype="int64")
        slot = _C_ops.elementwise_mod(m, count)
        stored = _C_ops.reshape(_C_ops.gather(ys, slot), shape=shape)
        _C_ops.elementwise_add(_C_ops.elementwise_sub(d, stored), grad, out=[d])
        _C_ops.scatter(ys, slot, _C_ops.reshape(grad, shape=[1] + shape), out=[ys])
        _C_ops.increment(m, out=[m])
        seen = _C_ops.cast(_C_ops.elementwise_min(m, count), out_dtype=dtype_name(param.dtype))
        step = _C_ops.elementwise_div(_C_ops.elementwise_mul(d, lr), seen)
        _C_ops.elementwise_sub(param, step, out=[param])

