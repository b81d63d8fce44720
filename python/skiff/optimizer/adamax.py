"""Adamax (Paddle semantics): the Adam variant on the infinity norm, with epsilon added to
the decayed norm; moment, inf_norm and beta1_pow_acc accumulators updated by the adamax op."""
from .optimizer import Optimizer, _as_float

__all__ = ["Adamax"]

_STATE = ("moment", "inf_norm", "beta1_pow_acc")


def _check_beta(value, what):
    if not 0 <= value < 1:
        raise ValueError(f"{what} must be in [0, 1), got {value}")
    return value


class Adamax(Optimizer):
    """m = beta1*m + (1-beta1)*g; u = max(|g|, beta2*u + epsilon);
    param -= lr / (1 - beta1^t) * m / u. Group options: beta1, beta2, epsilon."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        self._defaults = {"beta1": _check_beta(_as_float(beta1, "beta1", self), "Adamax: beta1"),
                          "beta2": _check_beta(_as_float(beta2, "beta2", self), "Adamax: beta2"),
                          "epsilon": _as_float(epsilon, "epsilon", self)}
        if self._defaults["epsilon"] < 0:
            raise ValueError(f"Adamax: epsilon must be >= 0, got {epsilon}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("moment", param)
        self._add_accumulator("inf_norm", param)
        self._add_accumulator("beta1_pow_acc", param, float(group["beta1"]), shape=[1])

    def _append_optimize_op(self, param, grad, lr, group):
        moment, inf_norm, beta1_pow = self._accumulators_of(param, _STATE)
        attrs = {"beta1": float(group["beta1"]), "beta2": float(group["beta2"]),
                 "epsilon": float(group["epsilon"])}
        self._run_update("adamax",
                         [param, self._dense_grad(param, grad), lr, moment, inf_norm, beta1_pow],
                         [param, moment, inf_norm, beta1_pow], attrs)
