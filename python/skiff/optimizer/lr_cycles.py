"""Schedules that rise and fall: OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts, and
LinearLR (a linear ramp of the factor)."""
import math

from ..framework import arguments
from ..framework.arguments import choice, count, flag, real
from .lr_scheduler import LRScheduler, _epoch, _number


class OneCycleLR(LRScheduler):
    """One cycle: up from max_learning_rate / divide_factor to max_learning_rate over
    phase_pct of total_steps, then down to end_learning_rate (three_phase: back to the
    initial rate first); 'cos' or 'linear' annealing."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy="cos",
                 three_phase=False, last_epoch=-1, verbose=False):
        fn = "OneCycleLR"
        max_lr = _number(max_learning_rate, "max_learning_rate", fn)
        total_steps = count(fn, "total_steps", total_steps, low=1)
        phase_pct = real(fn, "phase_pct", phase_pct, low=0, high=1)
        choice(fn, "anneal_strategy", anneal_strategy, ("cos", "linear"))
        if flag(fn, "three_phase", three_phase) and phase_pct >= 0.5:
            raise arguments.ArgumentError("OneCycleLR: with three_phase, phase_pct must be "
                                          "below 0.5")
        self.total_steps = total_steps
        initial = max_lr / real(fn, "divide_factor", divide_factor, above=0)
        end = _number(end_learning_rate, "end_learning_rate", fn)
        up_end = phase_pct * total_steps - 1
        last = total_steps - 1
        if three_phase:
            # (first step, last step, start lr, end lr) of each phase
            self._phases = [(0, up_end, initial, max_lr),
                            (up_end, 2 * phase_pct * total_steps - 2, max_lr, initial),
                            (2 * phase_pct * total_steps - 2, last, initial, end)]
        else:
            self._phases = [(0, up_end, initial, max_lr), (up_end, last, max_lr, end)]
        self._cosine = anneal_strategy == "cos"
        super().__init__(initial, last_epoch, verbose)

    def _anneal(self, start, end, fraction):
        if self._cosine:
            return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)
        return (end - start) * fraction + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step} times, past total_steps "
                             f"{self.total_steps}")
        for i, (first, last, start, end) in enumerate(self._phases):
            if step <= last or i == len(self._phases) - 1:
                span = last - first  # 0 for a phase of one step
                return self._anneal(start, end, (step - first) / span if span else 1.0)


class CyclicLR(LRScheduler):
    """Triangular cycles between base_learning_rate and max_learning_rate (step_size_up
    steps up, step_size_down down); 'triangular2' halves the height every cycle,
    'exp_range' scales it by exp_gamma^step; or a custom scale_fn of the cycle/step."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle",
                 last_epoch=-1, verbose=False):
        fn = "CyclicLR"
        up = real(fn, "step_size_up", step_size_up, above=0)
        down = up if step_size_down is None else real(fn, "step_size_down", step_size_down,
                                                      above=0)
        if scale_fn is None:
            choice(fn, "mode", mode, ("triangular", "triangular2", "exp_range"))
        elif not callable(scale_fn):
            raise arguments.ArgumentTypeError(f"CyclicLR: scale_fn must be callable or None, "
                                              f"got {type(scale_fn).__name__}")
        choice(fn, "scale_mode", scale_mode, ("cycle", "iterations"))
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = _number(max_learning_rate, "max_learning_rate", fn)
        self.amplitude = self.max_lr - _number(base_learning_rate, "base_learning_rate", fn)
        self.mode = mode
        self.gamma = _number(exp_gamma, "exp_gamma", fn)
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        step = self.last_epoch
        cycle = 1 + step // self.cycle_size
        position = 1.0 + step / self.cycle_size - cycle
        if position <= self.step_up_pct:
            height = position / self.step_up_pct
        else:
            height = (1 - position) / (1 - self.step_up_pct)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else step)
        return self.base_lr + self.amplitude * height * scale


class LinearLR(LRScheduler):
    """The factor on learning_rate moves linearly from start_factor to end_factor over
    total_steps, then stays."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        self.start_factor = real("LinearLR", "start_factor", start_factor, above=0, high=1.0)
        self.end_factor = real("LinearLR", "end_factor", end_factor, low=0, high=1.0)
        self.total_steps = count("LinearLR", "total_steps", total_steps, low=1)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        previous = self.total_steps * self.start_factor + (self.last_epoch - 1) * span
        return self.last_lr * (1.0 + span / previous)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_i steps, restarting at
    learning_rate each time; T_i starts at T_0 and grows by T_mult at every restart."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        fn = "CosineAnnealingWarmRestarts"
        self.T_0 = self.T_i = count(fn, "T_0", T_0, low=1)
        self.T_mult = count(fn, "T_mult", T_mult, low=1)
        self.eta_min = _number(eta_min, "eta_min", fn)
        self.T_cur = count(fn, "last_epoch", last_epoch, low=-1)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        cos = math.cos(math.pi * self.T_cur / self.T_i)
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + cos) / 2

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif _epoch("CosineAnnealingWarmRestarts", epoch) >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: CosineAnnealingWarmRestarts set learning rate to "
                  f"{self.last_lr}.")
