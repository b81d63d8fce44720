"""Callbacks of Model.fit / evaluate / predict (Paddle's paddle.callbacks).

    model.fit(train, eval_data=test, epochs=10, callbacks=[
        EarlyStopping(monitor="acc", patience=2), LRScheduler(by_epoch=True)])

fit adds a ProgBarLogger (when verbose), a ModelCheckpoint and an LRScheduler (per step)
unless the list already holds one of that kind.
"""
import numbers
import os
import warnings

import numpy as np

from .progressbar import ProgressBar
from ..distributed.env import ParallelEnv
from ..board import LogWriter

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping",
           "VisualDL", "config_callbacks"]

_MODES = ("train", "eval", "predict")


class Callback:
    """Base class: every hook does nothing; ``self.model`` and ``self.params`` (batch_size,
    epochs, steps, verbose, metrics) are set before training starts."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        """Before the first epoch of fit."""

    def on_train_end(self, logs=None):
        """After the last epoch of fit; logs are the last epoch's."""

    def on_eval_begin(self, logs=None):
        """Before evaluation; logs hold 'steps' and 'metrics' (the names)."""

    def on_eval_end(self, logs=None):
        """After evaluation; logs hold the loss and metric values over the data."""

    def on_predict_begin(self, logs=None):
        """Before predict; logs hold 'steps'."""

    def on_predict_end(self, logs=None):
        """After predict."""

    def on_epoch_begin(self, epoch, logs=None):
        """Before training epoch ``epoch`` (0-based)."""

    def on_epoch_end(self, epoch, logs=None):
        """After training epoch ``epoch``; logs hold its last loss and metric values."""

    def on_train_batch_begin(self, step, logs=None):
        """Before training step ``step`` of an epoch."""

    def on_train_batch_end(self, step, logs=None):
        """After training step ``step``; logs hold loss, metrics, 'step' and 'batch_size'."""

    def on_eval_batch_begin(self, step, logs=None):
        """Before evaluation step ``step``."""

    def on_eval_batch_end(self, step, logs=None):
        """After evaluation step ``step``."""

    def on_predict_batch_begin(self, step, logs=None):
        """Before prediction step ``step``."""

    def on_predict_batch_end(self, step, logs=None):
        """After prediction step ``step``."""


class CallbackList:
    """Calls one hook on every callback, in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        self._call(f"on_{_check_mode(mode)}_begin", logs)

    def on_end(self, mode, logs=None):
        self._call(f"on_{_check_mode(mode)}_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step, logs=None):
        self._call(f"on_{_check_mode(mode)}_batch_begin", step, logs)

    def on_batch_end(self, mode, step, logs=None):
        self._call(f"on_{_check_mode(mode)}_batch_end", step, logs)


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError(f"callback mode must be one of {_MODES}, got {mode!r}")
    return mode


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    """The CallbackList fit / evaluate / predict run: ``callbacks`` plus the defaults."""
    cbks = list(callbacks) if isinstance(callbacks, (list, tuple)) else (
        [callbacks] if callbacks is not None else [])
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks.insert(0, ProgBarLogger(log_freq, verbose=verbose))
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks.append(LRScheduler())
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class ProgBarLogger(Callback):
    """Prints 'Epoch i/n' and a progress line every ``log_freq`` steps (and at the end of
    each epoch / evaluation): loss, metrics, time elapsed and left, time per step."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq = max(int(log_freq), 1)
        self.verbose = verbose
        self.epochs = None
        self._bars = {}

    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        if self.verbose:
            print("The loss shown is that of the current step; metrics are averaged over the "
                  "epoch so far.")

    def _begin(self, mode, steps, metrics, title=None):
        self._bars[mode] = {"bar": ProgressBar(num=steps, verbose=self.verbose), "step": 0,
                            "steps": steps, "samples": 0, "metrics": list(metrics or [])}
        if self.verbose and title:
            print(title)

    def _batch_end(self, mode, logs):
        state = self._bars[mode]
        state["step"] += 1
        state["samples"] += (logs or {}).get("batch_size", 1)
        steps = state["steps"]
        if state["step"] % self.log_freq == 0 and (steps is None or state["step"] < steps):
            self._show(mode, logs)

    def _show(self, mode, logs):
        state = self._bars[mode]
        logs = logs or {}
        values = [(k, logs[k]) for k in state["metrics"] if k in logs]
        state["bar"].update(state["step"], values)

    def on_epoch_begin(self, epoch, logs=None):
        title = f"Epoch {epoch + 1}/{self.epochs}" if self.epochs else None
        self._begin("train", self.params.get("steps"), self.params.get("metrics"), title)

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs)

    def on_epoch_end(self, epoch, logs=None):
        if self._bars["train"]["steps"] is not None:
            self._show("train", logs)

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self._begin("eval", logs.get("steps"), logs.get("metrics"), "Eval begin...")

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs)

    def on_eval_end(self, logs=None):
        state = self._bars["eval"]
        if self.verbose and state["steps"] is not None:
            self._show("eval", logs)
        if self.verbose:
            print(f"Eval samples: {state['samples']}")

    def on_predict_begin(self, logs=None):
        self._begin("predict", (logs or {}).get("steps"), [], "Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("predict", logs)

    def on_predict_end(self, logs=None):
        state = self._bars["predict"]
        if self.verbose:
            if state["step"] % self.log_freq != 0 or self.verbose == 1 or (
                    state["steps"] is not None and state["step"] >= state["steps"]):
                self._show("predict", logs)
            print(f"Predict samples: {state['samples']}")


class ModelCheckpoint(Callback):
    """Saves the model (Model.save) to save_dir/<epoch> every ``save_freq`` epochs and to
    save_dir/final when training ends; does nothing without a save_dir."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = max(int(save_freq), 1)
        self.save_dir = save_dir

    def _save(self, name):
        path = os.path.join(self.save_dir, str(name))
        print(f"save checkpoint at {os.path.abspath(path)}")
        self.model.save(path)

    def on_epoch_end(self, epoch, logs=None):
        if self.model is not None and self.save_dir and epoch % self.save_freq == 0:
            self._save(epoch)

    def on_train_end(self, logs=None):
        if self.model is not None and self.save_dir:
            self._save("final")


def _scheduler_of(model):
    """The optimizer's learning-rate scheduler, or None when the rate is a number."""
    opt = getattr(model, "_optimizer", None)
    lr = getattr(opt, "_learning_rate", None)
    if lr is None or isinstance(lr, numbers.Number) or not callable(getattr(lr, "step", None)):
        return None
    return lr


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every training batch
    (``by_step``) or after every epoch (``by_epoch``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch exclude each other")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def on_epoch_end(self, epoch, logs=None):
        scheduler = _scheduler_of(self.model) if self.by_epoch else None
        if scheduler is not None:
            scheduler.step()

    def on_train_batch_end(self, step, logs=None):
        scheduler = _scheduler_of(self.model) if self.by_step else None
        if scheduler is not None:
            scheduler.step()


class EarlyStopping(Callback):
    """Stops fit (model.stop_training = True) once ``monitor`` (a loss or metric name in the
    evaluation logs) has not improved by more than ``min_delta`` for ``patience``
    evaluations; 'auto' mode maximises names containing 'acc' and minimises the rest. With
    ``save_best_model`` and fit's save_dir, the best model goes to save_dir/best_model."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.save_best_model = save_best_model
        self.save_dir = None
        self.wait_epoch = 0
        self.stopped_epoch = 0
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode!r} is unknown; using 'auto'")
            mode = "auto"
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.monitor_op = np.greater if mode == "max" else np.less
        self.min_delta = abs(min_delta) if mode == "max" else -abs(min_delta)

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op is np.less else -np.inf

    def on_eval_end(self, logs=None):
        if not logs or self.monitor not in logs:
            warnings.warn(f"EarlyStopping: monitor {self.monitor!r} is not among the "
                          f"evaluation results {sorted(logs or {})}")
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        if not isinstance(current, numbers.Number):
            return
        best_path = os.path.join(self.save_dir, "best_model") if self.save_dir else None
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and best_path:
                self.model.save(best_path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and best_path:
                    print(f"Best checkpoint has been saved at {os.path.abspath(best_path)}")
        self.stopped_epoch += 1



def _logged_value(value):
    """A loss or metric from the logs as a number (a list holds it first), else None."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    return value if isinstance(value, numbers.Number) else None


class VisualDL(Callback):
    """Logs to a skiff.board.LogWriter on ``log_dir`` (Paddle's paddle.callbacks.VisualDL):
    the loss and metrics after every training step as 'train/<name>' at the global step
    (counted from 1), and the evaluation results as 'eval/<name>' at the epoch. Only the
    worker of local rank 0 writes; the writer is closed when fit (or evaluate) ends."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.writer = None
        self.epoch = 0
        self.train_step = 0
        self.train_metrics = []
        self.eval_metrics = []
        self._in_fit = False
        self._writes = ParallelEnv().local_rank == 0

    def _write(self, mode, names, logs, step):
        if not self._writes:
            return
        if self.writer is None:
            self.writer = LogWriter(self.log_dir)
        for name in names:
            value = _logged_value((logs or {}).get(name))
            if value is not None:
                self.writer.add_scalar(f"{mode}/{name}", value, step)

    def _close(self):
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def on_train_begin(self, logs=None):
        self._in_fit = True
        self.train_step = 0
        self.train_metrics = list(self.params.get("metrics") or [])

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._write("train", self.train_metrics, logs, self.train_step)

    def on_eval_begin(self, logs=None):
        self.eval_metrics = list((logs or {}).get("metrics") or [])

    def on_eval_end(self, logs=None):
        self._write("eval", self.eval_metrics, logs, self.epoch)
        if not self._in_fit:
            self._close()

    def on_train_end(self, logs=None):
        self._in_fit = False
        self._close()
