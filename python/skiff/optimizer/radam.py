"""RAdam (Paddle semantics): Adam whose step is rectified once the variance estimate is
tractable (rho_t > 5), plain momentum SGD before. Accumulators as Paddle's (beta1_pow,
beta2_pow and rho shaped like the parameter, every element equal; moment1, moment2)."""
from .optimizer import Optimizer, _as_float

__all__ = ["RAdam"]

_STATE = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")


class RAdam(Optimizer):
    """rho_t = rho_inf - 2t*beta2^t/(1-beta2^t), rho_inf = 2/(1-beta2) - 1; see the radam
    op for the step. Group options: beta1, beta2, epsilon."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        d = {"beta1": _as_float(beta1, "beta1", self), "beta2": _as_float(beta2, "beta2", self),
             "epsilon": _as_float(epsilon, "epsilon", self)}
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"RAdam: learning_rate must be >= 0, got {learning_rate}")
        for key in ("beta1", "beta2"):
            if not 0 <= d[key] < 1:
                raise ValueError(f"RAdam: {key} must be in [0, 1), got {d[key]}")
        if d["epsilon"] < 0:
            raise ValueError(f"RAdam: epsilon must be >= 0, got {epsilon}")
        self._defaults = d
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        for kind in _STATE:
            self._add_accumulator(kind, param, 0.0 if kind in ("moment1", "moment2") else 1.0)

    def _append_optimize_op(self, param, grad, lr, group):
        state = self._accumulators_of(param, _STATE)
        attrs = {key: float(group[key]) for key in ("beta1", "beta2", "epsilon")}
        self._run_update("radam", [param, self._dense_grad(param, grad), lr, *state],
                         [param, *state], attrs)
