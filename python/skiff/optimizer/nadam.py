"""NAdam (Paddle semantics): Adam with Nesterov momentum on a decaying momentum schedule.
Accumulators as Paddle's (momentum_decay_pow, beta2_pow and mu_product shaped like the
parameter, every element equal; moment1, moment2), updated by the nadam op."""
from .optimizer import Optimizer, _as_float

__all__ = ["NAdam"]

_STATE = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")


class NAdam(Optimizer):
    """mu_t = beta1*(1 - 0.96^(t*momentum_decay)/2); the step mixes the next step's
    momentum with the current gradient (see the nadam op). Group options: beta1, beta2,
    epsilon, momentum_decay."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        d = {"beta1": _as_float(beta1, "beta1", self), "beta2": _as_float(beta2, "beta2", self),
             "epsilon": _as_float(epsilon, "epsilon", self),
             "momentum_decay": _as_float(momentum_decay, "momentum_decay", self)}
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"NAdam: learning_rate must be >= 0, got {learning_rate}")
        for key in ("beta1", "beta2"):
            if not 0 <= d[key] < 1:
                raise ValueError(f"NAdam: {key} must be in [0, 1), got {d[key]}")
        for key in ("epsilon", "momentum_decay"):
            if d[key] < 0:
                raise ValueError(f"NAdam: {key} must be >= 0, got {d[key]}")
        self._defaults = d
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        for kind in _STATE:
            self._add_accumulator(kind, param, 0.0 if kind in ("moment1", "moment2") else 1.0)

    def _append_optimize_op(self, param, grad, lr, group):
        state = self._accumulators_of(param, _STATE)
        attrs = {key: float(group[key]) for key in ("beta1", "beta2", "epsilon",
                                                    "momentum_decay")}
        self._run_update("nadam", [param, self._dense_grad(param, grad), lr, *state],
                         [param, *state], attrs)
