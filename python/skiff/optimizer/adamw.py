"""AdamW: Adam with decoupled weight decay (param *= 1 - lr * coeff before the update)."""
from .. import _C
from .adam import Adam
from .optimizer import _as_float

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW. ``weight_decay`` is the decoupled coefficient (a group option too);
    ``apply_decay_param_fun(name)`` False exempts a parameter from it; ``lr_ratio(param)``
    scales the learning rate per parameter. A parameter's own regularizer (ParamAttr)
    still adds to its gradient."""

    _op_type = "adamw"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False,
                 name=None):
        if isinstance(weight_decay, _C.Tensor) or not hasattr(weight_decay, "coeff"):
            coeff = _as_float(weight_decay if weight_decay is not None else 0.0, "weight_decay",
                              self)
        else:
            coeff = float(weight_decay.coeff)  # a regularizer object: its coefficient
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError("AdamW: lr_ratio must be a function of the parameter")
        self._defaults = {"weight_decay": coeff}
        self._apply_decay_param_fun = apply_decay_param_fun
        self._lr_ratio = lr_ratio
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)

    def _regularizer_for(self, param, group):
        return getattr(param, "regularizer", None)

    def _lr_scale(self, param, group):
        scale = super()._lr_scale(param, group)
        return scale * float(self._lr_ratio(param)) if self._lr_ratio is not None else scale

    def _attrs(self, param, group):
        attrs = super()._attrs(param, group)
        decays = (self._apply_decay_param_fun is None
                  or self._apply_decay_param_fun(param.name))
        attrs["coeff"] = float(group["weight_decay"]) if decays else 0.0
        return attrs
