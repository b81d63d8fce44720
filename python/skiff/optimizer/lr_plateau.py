"""ReduceOnPlateau: a schedule driven by a monitored metric instead of the step count."""
import numbers

import numpy as np

from .lr import LRScheduler, _number


def _metric_value(metrics):
    if isinstance(metrics, bool):
        raise TypeError("ReduceOnPlateau.step: metrics must be a number or a one-element tensor")
    if isinstance(metrics, numbers.Real):
        return float(metrics)
    if hasattr(metrics, "numpy") or isinstance(metrics, np.ndarray):
        array = np.asarray(metrics.numpy() if hasattr(metrics, "numpy") else metrics)
        if array.size != 1:
            raise ValueError(f"ReduceOnPlateau.step: metrics must hold one value, got shape "
                             f"{list(array.shape)} (take its mean first)")
        return float(array.reshape(-1)[0])
    raise TypeError(f"ReduceOnPlateau.step: metrics must be a number or a one-element tensor, "
                    f"got {type(metrics).__name__}")


class ReduceOnPlateau(LRScheduler):
    """Multiplies the learning rate by ``factor`` (not below ``min_lr``) once the metric
    passed to ``step(metrics)`` has not improved for more than ``patience`` steps, then
    waits ``cooldown`` steps before counting again."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be below 1.0, got {factor}")
        self.mode = mode
        self.factor = float(factor)
        self.patience = patience
        self.threshold = float(threshold)
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.min_lr = float(min_lr)
        self.epsilon = float(epsilon)
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = _number(learning_rate, "learning_rate")
        self.last_epoch = 0
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Records one value of the monitored metric (a number or a one-element tensor)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
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
