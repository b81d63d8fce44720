"""RMSProp (Paddle semantics: epsilon inside the root, the learning rate inside the
momentum): mean_square, momentum and (centered) mean_grad accumulators."""
from .optimizer import Optimizer, _as_float

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """ms = rho*ms + (1-rho)*g^2; mom = momentum*mom + lr*g/sqrt(ms [- mg^2] + epsilon);
    param -= mom. Group options: rho, epsilon, momentum, centered."""

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        self._defaults = {"rho": _as_float(rho, "rho", self),
                          "epsilon": _as_float(epsilon, "epsilon", self),
                          "momentum": _as_float(momentum, "momentum", self),
                          "centered": bool(centered)}
        if not 0.0 <= self._defaults["rho"] < 1.0 or self._defaults["epsilon"] < 0:
            raise ValueError(f"RMSProp: rho must be in [0, 1) and epsilon >= 0, got "
                             f"{rho}, {epsilon}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("momentum", param)
        self._add_accumulator("mean_square", param)
        self._add_accumulator("mean_grad", param)

    def _append_optimize_op(self, param, grad, lr, group):
        mean_square = self._get_accumulator("mean_square", param)
        moment = self._get_accumulator("momentum", param)
        centered = bool(group["centered"])
        mean_grad = self._get_accumulator("mean_grad", param) if centered else None
        attrs = {"decay": float(group["rho"]), "epsilon": float(group["epsilon"]),
                 "momentum": float(group["momentum"]), "centered": centered}
        self._run_update("rmsprop",
                         [param, self._dense_grad(param, grad), mean_square, moment, mean_grad, lr],
                         [param, mean_square, moment, mean_grad], attrs,
                         output_counts=[1, 1, 1, 1 if centered else 0])
