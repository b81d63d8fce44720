"""LRScheduler, the base of the learning-rate schedules (paddle.optimizer.lr.LRScheduler):
the epoch counter, step(), state_dict and the checks the schedules share.

A schedule that is a closed form of the step counter names its op (``_lr_op``, one of
the lr_* ops of skiff/ops/lr_*.cc): its value is that op run on a counter holding
``last_epoch``, eagerly (also in static mode), and a static program computes its
learning rate with the same op from a counter variable the executor writes. The op is
the one formula of the schedule, for eager, static, C++-built and compiled programs.
Schedules that call user code or read metrics stay host-side: they define ``get_lr``."""
import math
import numbers

import numpy as np

from .. import _C
from ..framework import arguments, core
from ..framework.arguments import count, flag, real

__all__ = ["LRScheduler"]


def _number(value, what, cls="LRScheduler"):
    """A float setting of the schedule ``cls`` (a bool is refused)."""
    if isinstance(value, bool):
        raise arguments.ArgumentTypeError(f"{cls}: {what} must be a float, got bool")
    return arguments.number(cls, what, value)


def _epoch(cls, value, param="epoch"):
    """An epoch given to a schedule: a number >= 0 (an int kept as an int)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return count(cls, param, value)
    return real(cls, param, value, low=0)


def _reals(cls, param, values):
    """A list or tuple of numbers, as a list of floats."""
    if not isinstance(values, (list, tuple)):
        raise arguments.ArgumentTypeError(f"{cls}: {param} must be a list or tuple of "
                                          f"numbers, got {type(values).__name__}")
    return [arguments.number(cls, f"{param}[{i}]", v) for i, v in enumerate(values)]


def _counter(epoch):
    """A one-element step counter holding ``epoch``: int64, or float64 for a fractional
    epoch (Paddle's step(epoch) takes one)."""
    if float(epoch).is_integer():
        return _C.tensor_from_array(np.array([int(epoch)], dtype=np.int64), False)
    return _C.tensor_from_array(np.array([epoch], dtype=np.float64), False)


class LRScheduler:
    """Base of the schedules: ``step()`` advances ``last_epoch`` and sets ``last_lr`` to
    ``get_lr()``; subclasses define ``_lr_op`` (a closed form of the step, run as an op)
    or, host-side, ``get_lr`` from ``base_lr`` and ``last_epoch``."""

    _step_var_name = None  # a static program's step counter (static_support), or None

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        cls = type(self).__name__
        learning_rate = _number(learning_rate, "learning_rate", cls)
        if not learning_rate >= 0:
            raise arguments.ArgumentError(f"{cls}: learning_rate must not be negative, got "
                                          f"{learning_rate}")
        self.base_lr = learning_rate
        self.last_lr = learning_rate
        self.last_epoch = count(cls, "last_epoch", last_epoch, low=-1)
        self.verbose = flag(cls, "verbose", verbose)
        self._var_name = None
        self.step()

    def __call__(self):
        """The learning rate of the current step."""
        return self.last_lr

    def step(self, epoch=None):
        """Moves to the next epoch (or to ``epoch``) and recomputes ``last_lr``."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = _epoch(type(self).__name__, epoch)
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self):
        """The rate at ``last_epoch``: the schedule's op, run now."""
        if not self._has_lr_op():
            raise NotImplementedError(f"{type(self).__name__} must define get_lr()")
        return self._op_value(self.last_epoch)

    def _lr_op(self, step, **options):
        """Calls the schedule's op (its skiff._C_ops function) on ``step``, a counter
        tensor or variable, with ``options`` (dtype, step_offset, out) added; returns Out.
        Defined by the schedules that are closed forms of the step."""
        raise NotImplementedError(f"{type(self).__name__} is a host-side schedule")

    def _has_lr_op(self):
        """Whether ``_lr_op`` computes this schedule (else it is host-side)."""
        return type(self)._lr_op is not LRScheduler._lr_op

    def _op_value(self, epoch):
        """The schedule's op run now on a counter holding ``epoch`` (eagerly, also in
        static mode or under a hook): the rate as a float."""
        with core.eager_now():
            return self._lr_op(_counter(epoch), dtype="float64").item()

    def _append_lr_ops(self, step, out):
        """Appends to the current program the ops computing the float32 rate ``out``
        from the int64 counter variable ``step`` (for an op-backed schedule)."""
        self._lr_op(step, dtype="float32", out=[out])

    def _program_input(self):
        """(variable name, value) the executor writes before each run of a program built
        with this schedule: the step counter (``last_epoch``) the program's schedule ops
        read, or for a host-side schedule the rate itself."""
        if self._step_var_name is not None:
            return self._step_var_name, np.array([math.floor(self.last_epoch)], np.int64)
        return self._var_name, np.array([self()], dtype=np.float32)

    def state_keys(self):
        """Sets ``self.keys``: the attributes state_dict saves."""
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        """The scheduler's state: ``last_epoch`` and ``last_lr`` (and subclass extras)."""
        self.state_keys()
        state = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                state[key] = float(value.item()) if hasattr(value, "item") and not isinstance(
                    value, (int, float)) else value
        return state

    def set_state_dict(self, state_dict):
        """Restores what state_dict returned."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: state_dict must be a dict "
                            f"(what state_dict() returned), got {type(state_dict).__name__}")
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: the state has no "
                                   f"'{key}' (it has {sorted(state_dict)})")
            self.__dict__[key] = state_dict[key]

    set_dict = set_state_dict
