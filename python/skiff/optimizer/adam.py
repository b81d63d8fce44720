"""Adam (Paddle semantics, equal to the usual bias-corrected Adam): moment1/moment2
accumulators and beta1^t/beta2^t powers, updated in place by the adam op."""
from .optimizer import Optimizer, _as_float

__all__ = ["Adam"]


_ADAM_STATE = ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")


class Adam(Optimizer):
    """Adam. Sparse (selected-rows) gradients update every row as the dense update
    would, or only their rows with ``lazy_mode``. Group options: beta1, beta2,
    epsilon, lazy_mode, amsgrad (divide by the running maximum of the second moment)."""

    _op_type = "adam"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        self._defaults = dict(getattr(self, "_defaults", {}))
        self._defaults.update({"beta1": _as_float(beta1, "beta1", self),
                               "beta2": _as_float(beta2, "beta2", self),
                               "epsilon": _as_float(epsilon, "epsilon", self),
                               "lazy_mode": bool(lazy_mode), "amsgrad": bool(amsgrad)})
        for key in ("beta1", "beta2"):
            if not 0 <= self._defaults[key] < 1:
                raise ValueError(f"{key} must be in [0, 1), got {self._defaults[key]}")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("moment1", param)
        self._add_accumulator("moment2", param)
        self._add_accumulator("beta1_pow_acc", param, float(group["beta1"]), shape=[1])
        self._add_accumulator("beta2_pow_acc", param, float(group["beta2"]), shape=[1])
        if group["amsgrad"]:
            self._add_accumulator("moment2_max", param)

    def _attrs(self, param, group):
        return {"beta1": float(group["beta1"]), "beta2": float(group["beta2"]),
                "epsilon": float(group["epsilon"]), "lazy_mode": bool(group["lazy_mode"]),
                "amsgrad": bool(group["amsgrad"])}

    def _append_optimize_op(self, param, grad, lr, group):
        acc = self._accumulators_of(param, _ADAM_STATE)
        attrs = self._attrs(param, group)
        top = self._accumulators_of(param, ("moment2_max",))[0] if attrs["amsgrad"] else None
        self._run_update(self._op_type, [param, grad, *acc, lr, top], [param, *acc, top], attrs,
                         output_counts=[1, 1, 1, 1, 1, 1 if top is not None else 0])
