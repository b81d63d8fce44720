"""Momentum (Paddle semantics): velocity = momentum * velocity + grad;
param -= lr * velocity (Nesterov: lr * (grad + momentum * velocity))."""
from .. import _C_ops
from .optimizer import Optimizer, _as_float

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """SGD with momentum; ``rescale_grad`` multiplies the gradient before weight decay.
    Group options: momentum, use_nesterov, rescale_grad."""

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        self._defaults = {"momentum": _as_float(momentum, "momentum", self),
                          "use_nesterov": bool(use_nesterov),
                          "rescale_grad": _as_float(rescale_grad, "rescale_grad", self)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _prepare_grad(self, param, grad, group):
        scale = float(group["rescale_grad"])
        if scale == 1.0:
            return grad
        return _C_ops.scale(self._dense_grad(param, grad), scale=scale)

    def _create_accumulators(self, param, group):
        self._add_accumulator("velocity", param)

    def _append_optimize_op(self, param, grad, lr, group):
        velocity = self._get_accumulator("velocity", param)
        attrs = {"mu": float(group["momentum"]), "use_nesterov": bool(group["use_nesterov"])}
        self._run_update("momentum", [param, self._dense_grad(param, grad), velocity, lr],
                         [param, velocity], attrs)
