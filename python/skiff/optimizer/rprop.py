"""Rprop (Paddle semantics, full-batch training): every element keeps its own step size,
grown by etas[1] while its gradient keeps its sign and shrunk by etas[0] when the sign
flips (that step is then skipped). Accumulators as Paddle's: prevs and learning_rates."""
from .. import _C_ops
from .optimizer import Optimizer, _as_float

__all__ = ["Rprop"]


def _pair(value, what):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"Rprop: {what} must be a pair of floats, got {value!r}")
    return (_as_float(value[0], what, "Rprop"), _as_float(value[1], what, "Rprop"))


class Rprop(Optimizer):
    """s = prev * grad; lr_t = clip(lr_{t-1} * (etas[1] if s > 0, etas[0] if s < 0, else 1),
    *learning_rate_range); grad = 0 where s < 0; param -= sign(grad) * lr_t; prev = grad.
    ``learning_rate`` is the initial step size of every element."""

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        learning_rate = _as_float(learning_rate, "learning_rate", self)
        low, high = _pair(learning_rate_range, "learning_rate_range")
        minus, plus = _pair(etas, "etas")
        if not 0.0 < low <= learning_rate <= high:
            raise ValueError(f"Rprop: 0 < learning_rate_range[0] <= learning_rate <= "
                             f"learning_rate_range[1] must hold, got learning_rate "
                             f"{learning_rate} and learning_rate_range {learning_rate_range}")
        if not 0.0 < minus < 1.0 < plus:
            raise ValueError(f"Rprop: 0 < etas[0] < 1 < etas[1] must hold, got {etas}")
        self._defaults = {"learning_rate_range": (low, high), "etas": (minus, plus)}
        self._initial_learning_rate = learning_rate
        super().__init__(learning_rate, parameters, None, grad_clip, name)

    def _create_accumulators(self, param, group):
        self._add_accumulator("prevs", param, 0.0)
        self._add_accumulator("learning_rates", param, self._initial_learning_rate)

    def _append_optimize_op(self, param, grad, lr, group):
        prev, rates = self._accumulators_of(param, ("prevs", "learning_rates"))
        grad = self._dense_grad(param, grad)
        low, high = group["learning_rate_range"]
        minus, plus = group["etas"]

        def filled(value):
            return _C_ops.fill_any_like(grad, value=float(value), dtype="")

        agreement = _C_ops.elementwise_mul(prev, grad)
        zero = filled(0.0)
        flipped = _C_ops.less_than(agreement, zero)
        factor = _C_ops.where(_C_ops.greater_than(agreement, zero), filled(plus),
                              _C_ops.where(flipped, filled(minus), filled(1.0)))
        _C_ops.clip(_C_ops.elementwise_mul(rates, factor), min=low, max=high, out=[rates])
        grad = _C_ops.where(flipped, zero, grad)
        step = _C_ops.elementwise_mul(_C_ops.sign(grad), rates)
        _C_ops.elementwise_sub(param, step, out=[param])
        _C_ops.assign(grad, out=[prev])
