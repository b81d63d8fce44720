"""Learning-rate schedules with PaddlePaddle's semantics (paddle.optimizer.lr): the user
calls ``scheduler.step()`` (usually once per step or epoch); an optimizer built with
the scheduler reads ``scheduler()`` (``last_lr``) at every update."""
import math
import numbers

from ..framework import arguments
from ..framework.arguments import count, flag, real
from ..framework.tensor_params import check_classes as _check_classes
from .lr_cycles import CosineAnnealingWarmRestarts, CyclicLR, LinearLR, OneCycleLR
from .lr_plateau import ReduceOnPlateau
from .lr_scheduler import LRScheduler, _number, _reals

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

    def get_lr(self):
        a = 1.0 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


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

    def get_lr(self):
        for bound, value in zip(self.boundaries, self.values):
            if self.last_epoch < bound:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """lr = learning_rate * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number(gamma, "gamma", "NaturalExpDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr = learning_rate / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        # gamma < 0 would reach 1 + gamma * epoch = 0 (and negative rates)
        self.gamma = real("InverseTimeDecay", "gamma", _number(gamma, "gamma",
                                                                "InverseTimeDecay"), low=0)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


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

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps *= max(1, math.ceil(epoch / self.decay_steps))
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - epoch / steps) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """From start_lr up to end_lr linearly over warmup_steps, then ``learning_rate``: a
    float, or a scheduler stepped to (epoch - warmup_steps)."""

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

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            fraction = float(self.last_epoch) / float(self.warmup_steps)
            return (self.end_lr - self.start_lr) * fraction + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class ExponentialDecay(LRScheduler):
    """lr = learning_rate * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _number(gamma, "gamma", "ExponentialDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


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

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """lr = learning_rate * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = count("StepDecay", "step_size", step_size, low=1)
        self.gamma = real("StepDecay", "gamma", gamma, below=1.0)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise arguments.ArgumentTypeError(f"LambdaDecay: lr_lambda must be callable, got "
                                              f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr = learning_rate * the product of lr_lambda(e) for e in 1..epoch."""

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
    the next T_max), computed step by step like Paddle; ``step(epoch)`` uses the closed form."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = count("CosineAnnealingDecay", "T_max", T_max, low=1)
        self.eta_min = _number(eta_min, "eta_min", "CosineAnnealingDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, big_t = self.last_epoch, self.T_max
        if t == 0:
            return self.base_lr
        if (t - 1 - big_t) % (2 * big_t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / big_t)) / 2
        ratio = (1 + math.cos(math.pi * t / big_t)) / (1 + math.cos(math.pi * (t - 1) / big_t))
        return ratio * (self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        cos = math.cos(math.pi * self.last_epoch / self.T_max)
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + cos) / 2



_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
