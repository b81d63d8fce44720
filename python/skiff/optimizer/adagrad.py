"""Adagrad (Paddle semantics): moment += g^2; param -= lr * g / (sqrt(moment) + epsilon)."""
from .optimizer import Optimizer, _as_float

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad; the moment starts at ``initial_accumulator_value``. Group options:
    epsilon, initial_accumulator_value."""

    def __init__(self, learning_rate, epsilon=1e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        self._defaults = {"epsilon": _as_float(epsilon, "epsilon", self),
                          "initial_accumulator_value": _as_float(
                              initial_accumulator_value, "initial_accumulator_value", self)}
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("moment", param, float(group["initial_accumulator_value"]))

    def _append_optimize_op(self, param, grad, lr, group):
        moment = self._get_accumulator("moment", param)
        self._run_update("adagrad", [param, self._dense_grad(param, grad), moment, lr],
                         [param, moment], {"epsilon": float(group["epsilon"])})
