"""Adadelta (Paddle semantics: the learning rate scales the step only): the
_avg_squared_grad and _avg_squared_update accumulators, updated by the adadelta op."""
from .optimizer import Optimizer, _as_float

__all__ = ["Adadelta"]

_STATE = ("_avg_squared_grad", "_avg_squared_update")


class Adadelta(Optimizer):
    """Eg = rho*Eg + (1-rho)*g^2; d = -sqrt(Edx + epsilon) / sqrt(Eg + epsilon) * g;
    param += lr * d; Edx = rho*Edx + (1-rho)*d^2. Group options: epsilon, rho."""

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None or epsilon is None or rho is None:
            raise ValueError("Adadelta: learning_rate, epsilon and rho must be set")
        self._defaults = {"epsilon": _as_float(epsilon, "epsilon", self),
                          "rho": _as_float(rho, "rho", self)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        for kind in _STATE:
            self._add_accumulator(kind, param)

    def _append_optimize_op(self, param, grad, lr, group):
        avg_sq_grad, avg_sq_update = self._accumulators_of(param, _STATE)
        attrs = {"rho": float(group["rho"]), "epsilon": float(group["epsilon"])}
        self._run_update("adadelta",
                         [param, self._dense_grad(param, grad), lr, avg_sq_grad, avg_sq_update],
                         [param, avg_sq_grad, avg_sq_update], attrs)
