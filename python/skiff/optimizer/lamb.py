"""LAMB (Paddle semantics): Adam's direction plus decoupled weight decay, scaled per
parameter by the trust ratio |param| / |direction|; moment1, moment2, beta1_pow_acc and
beta2_pow_acc accumulators updated by the lamb op."""
from .optimizer import Optimizer, _as_float

__all__ = ["Lamb"]

_STATE = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")


class Lamb(Optimizer):
    """r = m_hat / (sqrt(v_hat) + epsilon) + lamb_weight_decay * param;
    param -= lr * (|param| / |r|) * r (ratio 1 without weight decay unless always_adapt).
    ``exclude_from_weight_decay_fn(param)`` True drops the decay for that parameter. Group
    options: beta1, beta2, epsilon, lamb_weight_decay, exclude_from_weight_decay_fn."""

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None):
        if exclude_from_weight_decay_fn is not None and not callable(
                exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be a function of the "
                            "parameter")
        self._defaults = {"beta1": _as_float(beta1, "beta1", self),
                          "beta2": _as_float(beta2, "beta2", self),
                          "epsilon": _as_float(epsilon, "epsilon", self),
                          "lamb_weight_decay": _as_float(lamb_weight_decay, "lamb_weight_decay",
                                                         self),
                          "exclude_from_weight_decay_fn": exclude_from_weight_decay_fn}
        self.always_adapt = bool(always_adapt)
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("moment1", param)
        self._add_accumulator("moment2", param)
        self._add_accumulator("beta1_pow_acc", param, float(group["beta1"]), shape=[1])
        self._add_accumulator("beta2_pow_acc", param, float(group["beta2"]), shape=[1])

    def _append_optimize_op(self, param, grad, lr, group):
        state = self._accumulators_of(param, _STATE)
        exclude = group["exclude_from_weight_decay_fn"]
        decay = 0.0 if exclude is not None and exclude(param) else group["lamb_weight_decay"]
        attrs = {"beta1": float(group["beta1"]), "beta2": float(group["beta2"]),
                 "epsilon": float(group["epsilon"]), "weight_decay": float(decay),
                 "always_adapt": self.always_adapt}
        self._run_update("lamb", [param, self._dense_grad(param, grad), lr, *state],
                         [param, *state], attrs)
