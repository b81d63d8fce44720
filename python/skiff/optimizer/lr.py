"""Learning-rate schedules with PaddlePaddle's semantics (paddle.optimizer.lr): the user
calls ``scheduler.step()`` (usually once per step or epoch); an optimizer built with
the scheduler reads ``scheduler()`` (``last_lr``) at every update. The schedules that
are closed forms of ``last_epoch`` compute it with their lr_* op (see lr_scheduler);
LambdaDecay, MultiplicativeDecay and ReduceOnPlateau stay host-side."""
import numbers

from .. import _C_ops
from ..framework import arguments, core
from ..framework.arguments import count, flag, real
from ..framework.tensor_params import check_classes as _check_classes
from .lr_cycles import CosineAnnealingWarmRestarts, CyclicLR, LinearLR, OneCycleLR
from .lr_plateau import ReduceOnPlateau
from .lr_scheduler import LRScheduler, _counter, _number, _reals

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "ReduceOnPlateau", "CosineAnnealingDecay", "MultiplicativeDecay",
           "OneCycleLR", "CyclicLR", "LinearLR", "CosineAnnealingWarmRestarts"]


class NoamDecay(LRScheduler):
    """lr = learning_rate * d_model^-0.5 * min(epoch^-0.5, warmup_steps^-1.5 * epoch)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model = real("NoamDecay", "d_model", d_model, above=0)
        self.warmup_steps = real("NoamDecay", "warmup_steps", warmup_steps, above=0)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_noam_decay(step, learning_rate=self.base_lr, d_model=self.d_model,
                                    warmup_steps=self.warmup_steps, **options)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; values[-1] after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        boundaries = _reals("PiecewiseDecay", "boundaries", boundaries)
        values = _reals("PiecewiseDecay", "values", values)
        if len(values) != len(boundaries) + 1:
            raise arguments.ArgumentError(f"PiecewiseDecay: {len(boundaries)} boundaries need "
                                          f"{len(boundaries) + 1} values, got {len(values)}")
        self.boundaries = boundaries
        self.values = values
        super().__init__(self.values[0], last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_piecewise_decay(step, boundaries=self.boundaries, values=self.values,
                                         **options)


class NaturalExpDecay(LRScheduler):
    """lr = learning_rate * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number(gamma, "gamma", "NaturalExpDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_natural_exp_decay(step, learning_rate=self.base_lr, gamma=self.gamma,
                                           **options)


class InverseTimeDecay(LRScheduler):
    """lr = learning_rate / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        # gamma < 0 would reach 1 + gamma * epoch = 0 (and negative rates)
        self.gamma = real("InverseTimeDecay", "gamma", _number(gamma, "gamma",
                                                                "InverseTimeDecay"), low=0)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_inverse_time_decay(step, learning_rate=self.base_lr, gamma=self.gamma,
                                            **options)


class PolynomialDecay(LRScheduler):
    """lr = (learning_rate - end_lr) * (1 - epoch / decay_steps)^power + end_lr, the epoch
    held at decay_steps (or, with cycle, decay_steps grown to the next multiple)."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps = count("PolynomialDecay", "decay_steps", decay_steps, low=1)
        self.end_lr = _number(end_lr, "end_lr", "PolynomialDecay")
        self.power = _number(power, "power", "PolynomialDecay")
        self.cycle = flag("PolynomialDecay", "cycle", cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_polynomial_decay(step, learning_rate=self.base_lr,
                                          decay_steps=self.decay_steps, end_lr=self.end_lr,
                                          power=self.power, cycle=self.cycle, **options)


class LinearWarmup(LRScheduler):
    """From start_lr up to end_lr linearly over warmup_steps, then ``learning_rate``: a
    float, or a scheduler stepped to (epoch - warmup_steps). The lr_linear_warmup op
    computes it; in a static program the wrapped schedule's op too (its step offset by
    warmup_steps), unless that schedule is host-side."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, LRScheduler):
            if not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool):
                raise arguments.ArgumentTypeError(f"LinearWarmup: learning_rate must be a "
                                                  f"float or an LRScheduler, got "
                                                  f"{type(learning_rate).__name__}")
        self.warmup_steps = count("LinearWarmup", "warmup_steps", warmup_steps, low=1)
        self.start_lr = _number(start_lr, "start_lr", "LinearWarmup")
        self.end_lr = _number(end_lr, "end_lr", "LinearWarmup")
        if not self.end_lr > self.start_lr:
            raise arguments.ArgumentError(f"LinearWarmup: end_lr {end_lr} must exceed "
                                          f"start_lr {start_lr}")
        self.learning_rate = learning_rate
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    def _lr_op(self, step, after=None, **options):
        """lr_linear_warmup on ``step`` with ``after``, the rate from warmup_steps on (a
        [1] tensor or variable; the float learning_rate unless given)."""
        options.pop("dtype", None)  # Out has the dtype of ``after``
        if after is None:
            after = _C_ops.fill_constant(shape=[1], value=float(self.learning_rate),
                                         dtype="float64")
        return _C_ops.lr_linear_warmup(step, after, warmup_steps=self.warmup_steps,
                                       start_lr=self.start_lr, end_lr=self.end_lr, **options)

    def _has_lr_op(self):
        inner = self.learning_rate
        return not isinstance(inner, LRScheduler) or (inner._has_lr_op() and not isinstance(
            inner, LinearWarmup))

    def get_lr(self):
        inner = self.learning_rate
        if not isinstance(inner, LRScheduler):
            return self._op_value(self.last_epoch)
        if self.last_epoch >= self.warmup_steps:  # Paddle steps the wrapped schedule
            inner.step(self.last_epoch - self.warmup_steps)
        with core.eager_now():
            after = _C_ops.fill_constant(shape=[1], value=float(inner()), dtype="float64")
            return self._lr_op(_counter(self.last_epoch), after).item()

    def _append_lr_ops(self, step, out):
        inner = self.learning_rate
        after = None
        if isinstance(inner, LRScheduler):
            after = inner._lr_op(step, dtype="float32", step_offset=self.warmup_steps)
        else:
            after = _C_ops.fill_constant(shape=[1], value=float(inner), dtype="float32")
        self._lr_op(step, after, out=[out])


class ExponentialDecay(LRScheduler):
    """lr = learning_rate * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number(gamma, "gamma", "ExponentialDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_exponential_decay(step, learning_rate=self.base_lr, gamma=self.gamma,
                                           **options)


class MultiStepDecay(LRScheduler):
    """lr = learning_rate * gamma^(the number of milestones <= epoch)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        milestones = _reals("MultiStepDecay", "milestones", milestones)
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise arguments.ArgumentError(f"MultiStepDecay: milestones must increase, got "
                                          f"{milestones}")
        self.milestones = milestones
        self.gamma = real("MultiStepDecay", "gamma", gamma, below=1.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_multistep_decay(step, learning_rate=self.base_lr,
                                         milestones=self.milestones, gamma=self.gamma,
                                         **options)


class StepDecay(LRScheduler):
    """lr = learning_rate * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = count("StepDecay", "step_size", step_size, low=1)
        self.gamma = real("StepDecay", "gamma", gamma, below=1.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_step_decay(step, learning_rate=self.base_lr, step_size=self.step_size,
                                    gamma=self.gamma, **options)


class LambdaDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(epoch). Host-side: it calls user code, so a static
    program gets its value written by the executor before each run."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise arguments.ArgumentTypeError(f"LambdaDecay: lr_lambda must be callable, got "
                                              f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr = learning_rate * the product of lr_lambda(e) for e in 1..epoch. Host-side: it
    calls user code, so a static program gets its value written by the executor before
    each run."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise arguments.ArgumentTypeError(f"MultiplicativeDecay: lr_lambda must be "
                                              f"callable, got {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr *= self.lr_lambda(epoch)
        return lr


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_max epochs (and back up over
    the next T_max), in the closed form of the epoch (lr_cosine_annealing): Paddle's
    step-by-step recursion gives the same values (to rounding) unless ``last_lr`` is set
    by hand, which this schedule does not follow."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = count("CosineAnnealingDecay", "T_max", T_max, low=1)
        self.eta_min = _number(eta_min, "eta_min", "CosineAnnealingDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_cosine_annealing(step, learning_rate=self.base_lr, T_max=self.T_max,
                                          eta_min=self.eta_min, **options)


_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
