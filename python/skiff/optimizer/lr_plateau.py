"""ReduceOnPlateau: a schedule driven by a monitored metric instead of the step count."""
import numbers

import numpy as np

from ..framework import arguments
from ..framework.arguments import choice, count, flag, real
from .lr_scheduler import LRScheduler, _epoch, _number


def _metric_value(metrics):
    if isinstance(metrics, bool):
        raise arguments.ArgumentTypeError("ReduceOnPlateau.step: metrics must be a number or a "
                                          "one-element tensor, got bool")
    if isinstance(metrics, numbers.Real):
        return float(metrics)
    if hasattr(metrics, "numpy") or isinstance(metrics, np.ndarray):
        array = np.asarray(metrics.numpy() if hasattr(metrics, "numpy") else metrics)
        if array.size != 1 or array.dtype.kind not in "biuf":
            raise arguments.ArgumentError(f"ReduceOnPlateau.step: metrics must hold one "
                                          f"value, a number, got shape {list(array.shape)} "
                                          f"of {array.dtype} (take its mean first)")
        return float(array.reshape(-1)[0])
    raise arguments.ArgumentTypeError(f"ReduceOnPlateau.step: metrics must be a number or a "
                                      f"one-element tensor, got {type(metrics).__name__}")


class ReduceOnPlateau(LRScheduler):
    """Multiplies the learning rate by ``factor`` (not below ``min_lr``) once the metric
    passed to ``step(metrics)`` has not improved for more than ``patience`` steps, then
    waits ``cooldown`` steps before counting again. Host-side: it reads a metric, so a
    static program gets its value written by the executor before each run."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        fn = "ReduceOnPlateau"
        if isinstance(mode, str):
            mode = mode.lower()
        if isinstance(threshold_mode, str):
            threshold_mode = threshold_mode.lower()
        self.mode = choice(fn, "mode", mode, ("min", "max"))
        self.factor = real(fn, "factor", factor, below=1.0)
        self.patience = count(fn, "patience", patience)
        self.threshold = _number(threshold, "threshold", fn)
        self.threshold_mode = choice(fn, "threshold_mode", threshold_mode, ("rel", "abs"))
        self.cooldown = count(fn, "cooldown", cooldown)
        self.min_lr = _number(min_lr, "min_lr", fn)
        self.epsilon = _number(epsilon, "epsilon", fn)
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = _number(learning_rate, "learning_rate", fn)
        self.last_epoch = 0
        self.verbose = flag(fn, "verbose", verbose)
        self._var_name = None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Records one value of the monitored metric (a number or a one-element tensor)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else _epoch("ReduceOnPlateau",
                                                                          epoch)
        current = _metric_value(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            reduced = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - reduced > self.epsilon:
                self.last_lr = reduced
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: ReduceOnPlateau set learning rate to "
                          f"{self.last_lr}.")

    def _is_better(self, current, best):
        margin = best * self.threshold if self.threshold_mode == "rel" else self.threshold
        if self.mode == "min":
            return current < best - margin
        return current > best + margin
