"""Weight decay added to gradients before the optimizer update (Paddle's
paddle.regularizer): L2Decay adds coeff * param, L1Decay adds coeff * sign(param).
Pass one as ``weight_decay=`` to an optimizer or as ``ParamAttr(regularizer=...)``."""
from . import _C_ops
from .framework.arguments import number

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """A term added to a parameter's gradient; ``__call__(param, grad)`` returns it."""

    def __init__(self, coeff=0.0):
        self._coeff = number(type(self).__name__, "coeff", coeff)

    @property
    def coeff(self):
        return self._coeff

    def __call__(self, param, grad=None, block=None):
        raise NotImplementedError(f"{type(self).__name__} defines no decay term")

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: the gradient gains ``coeff * param``."""

    def __call__(self, param, grad=None, block=None):
        return _C_ops.scale(param, scale=self._coeff)


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: the gradient gains ``coeff * sign(param)``."""

    def __call__(self, param, grad=None, block=None):
        return _C_ops.scale(_C_ops.sign(param), scale=self._coeff)
