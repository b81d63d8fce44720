"""Schedules that rise and fall: OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts, and
LinearLR (a linear ramp of the factor); each computed by its lr_* op (see lr_scheduler),
but a CyclicLR with a user's scale_fn, which stays host-side."""
import math

from .. import _C_ops
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
        self.max_lr = max_lr
        self.divide_factor = real(fn, "divide_factor", divide_factor, above=0)
        self.end_lr = _number(end_learning_rate, "end_learning_rate", fn)
        self.phase_pct = phase_pct
        self.anneal_strategy = anneal_strategy
        self.three_phase = three_phase
        super().__init__(max_lr / self.divide_factor, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {self.last_epoch} times, past total_steps "
                             f"{self.total_steps}")
        return self._op_value(self.last_epoch)

    def _lr_op(self, step, **options):
        return _C_ops.lr_one_cycle(step, total_steps=self.total_steps,
                                   max_learning_rate=self.max_lr,
                                   divide_factor=self.divide_factor,
                                   end_learning_rate=self.end_lr, phase_pct=self.phase_pct,
                                   anneal_strategy=self.anneal_strategy,
                                   three_phase=self.three_phase, **options)


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
        self.step_size_up, self.step_size_down = up, down
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = _number(max_learning_rate, "max_learning_rate", fn)
        self.amplitude = self.max_lr - _number(base_learning_rate, "base_learning_rate", fn)
        self.mode = mode
        self.gamma = _number(exp_gamma, "exp_gamma", fn)
        self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _has_lr_op(self):
        return self.scale_fn is None

    def _lr_op(self, step, **options):
        return _C_ops.lr_cyclic(step, learning_rate=self.base_lr, max_learning_rate=self.max_lr,
                                step_size_up=self.step_size_up,
                                step_size_down=self.step_size_down, mode=self.mode,
                                exp_gamma=self.gamma, **options)

    def get_lr(self):
        if self.scale_fn is None:
            return self._op_value(self.last_epoch)
        # host-side: the user's scale_fn of the cycle or the step
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
    total_steps, then stays: the closed form of Paddle's step-by-step recursion (the same
    values, to rounding)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        self.start_factor = real("LinearLR", "start_factor", start_factor, above=0, high=1.0)
        self.end_factor = real("LinearLR", "end_factor", end_factor, low=0, high=1.0)
        self.total_steps = count("LinearLR", "total_steps", total_steps, low=1)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_linear_lr(step, learning_rate=self.base_lr, total_steps=self.total_steps,
                                   start_factor=self.start_factor, end_factor=self.end_factor,
                                   **options)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_i steps, restarting at
    learning_rate each time; T_i starts at T_0 and grows by T_mult at every restart."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        fn = "CosineAnnealingWarmRestarts"
        self.T_0 = count(fn, "T_0", T_0, low=1)
        self.T_mult = count(fn, "T_mult", T_mult, low=1)
        self.eta_min = _number(eta_min, "eta_min", fn)
        count(fn, "last_epoch", last_epoch, low=-1)
        self._position = None  # the epoch last stepped to (Paddle's may be fractional)
        super().__init__(learning_rate, last_epoch, verbose)

    def _lr_op(self, step, **options):
        return _C_ops.lr_cosine_warm_restarts(step, learning_rate=self.base_lr, T_0=self.T_0,
                                              T_mult=self.T_mult, eta_min=self.eta_min,
                                              **options)

    def get_lr(self):
        position = self._position  # unless set_state_dict moved last_epoch since
        if position is None or math.floor(position) != self.last_epoch:
            position = self.last_epoch
        return self._op_value(position)

    def step(self, epoch=None):
        """Moves to the next epoch (or to ``epoch``, which may be fractional: the cosine
        follows it while ``last_epoch`` holds its floor, as in Paddle)."""
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            epoch = _epoch("CosineAnnealingWarmRestarts", epoch)
        self._position = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: CosineAnnealingWarmRestarts set learning rate to "
                  f"{self.last_lr}.")
