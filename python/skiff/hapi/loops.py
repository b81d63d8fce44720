"""The data loops of skiff.Model: fit, evaluate and predict over a Dataset or a DataLoader
(or any iterable of batches), with callbacks around every epoch and batch."""
import warnings

import numpy as np

from ..framework import nest
from ..io import DataLoader, Dataset, IterableDataset
from .callbacks import EarlyStopping, config_callbacks

__all__ = ["LoopsMixin"]


def _to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _length(loader):
    try:
        return len(loader)
    except TypeError:
        return None


def _scalar(loss):
    loss = np.asarray(loss)
    return float(loss.reshape(-1)[0]) if loss.size == 1 else float(loss.mean())


def _split_batch_size(batch_size):
    if isinstance(batch_size, (list, tuple)):
        if len(batch_size) != 2:
            raise ValueError(f"batch_size: an int or (train, eval) sizes, got {batch_size!r}")
        return int(batch_size[0]), int(batch_size[1])
    return batch_size, batch_size


class LoopsMixin:
    """fit / evaluate / predict for skiff.Model (which supplies the *_batch methods)."""

    @staticmethod
    def _loader(data, batch_size, shuffle, drop_last, num_workers):
        """A DataLoader over a Dataset; anything else is iterated as given."""
        if not isinstance(data, Dataset):
            return data
        return DataLoader(data, batch_size=batch_size,
                          shuffle=shuffle and not isinstance(data, IterableDataset),
                          drop_last=drop_last, num_workers=num_workers, return_list=True)

    def _metrics_name(self):
        """'loss' (with a loss) and every metric's names, in log order."""
        names = ["loss"] if self._loss else []
        for metric in self._metrics:
            names.extend(_to_list(metric.name()))
        return names

    def _reset_metrics(self):
        for metric in self._metrics:
            metric.reset()

    def _run_one_epoch(self, loader, cbks, mode, max_steps=None):
        """One pass over ``loader`` in mode 'train', 'eval' or 'predict' (at most
        ``max_steps`` batches). Returns the last logs (and the outputs for 'predict')."""
        logs, outputs = {}, []
        steps = _length(loader)
        n = self._num_inputs
        for step, data in enumerate(loader):
            if max_steps is not None and step >= max_steps:
                break
            data = nest.leaves_of(data, dicts=False)
            logs["batch_size"] = int(data[0].shape[0]) if data else 0
            cbks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n]))
            else:
                args = [data[:n], data[n:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == steps)
                outs = getattr(self, mode + "_batch")(*args)
                values = []
                if self._loss:
                    losses = outs[0] if self._metrics else outs
                    values.append([_scalar(v) for v in losses])
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            logs["step"] = step
            cbks.on_batch_end(mode, step, logs)
            self._steps_run += 1
        self._reset_metrics()
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Trains for ``epochs`` epochs over ``train_data`` (a Dataset, batched here with
        batch_size / shuffle / drop_last / num_workers, or a DataLoader), evaluating on
        ``eval_data`` every ``eval_freq`` epochs; ``num_iters`` caps the training steps."""
        if train_data is None:
            raise ValueError("Model.fit: train_data is required")
        train_bs, eval_bs = _split_batch_size(batch_size)
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = (self._loader(eval_data, eval_bs, False, False, num_workers)
                       if eval_data is not None else None)
        self._accumulate = max(int(accumulate_grad_batches), 1)
        steps = _length(train_loader)
        if num_iters is not None:
            if num_iters <= 0:
                raise ValueError(f"Model.fit: num_iters must be positive, got {num_iters}")
            if steps is not None:
                epochs = num_iters // steps + 1
                steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, batch_size=train_bs, epochs=epochs,
                                steps=steps, log_freq=log_freq, verbose=verbose,
                                save_freq=save_freq, save_dir=save_dir,
                                metrics=self._metrics_name())
        if eval_loader is None and any(isinstance(c, EarlyStopping) for c in cbks):
            warnings.warn("EarlyStopping needs eval_data to monitor")
        self.stop_training = False
        self._steps_run = 0
        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            left = None if num_iters is None else num_iters - self._steps_run
            logs = self._run_one_epoch(train_loader, cbks, "train", max_steps=left)
            cbks.on_epoch_end(epoch, logs)
            if num_iters is not None and self._steps_run >= num_iters:
                self.stop_training = True
            if eval_loader is not None and epoch % eval_freq == 0:
                self._evaluate_loader(eval_loader, cbks)
            if self.stop_training:
                break
        cbks.on_end("train", logs)

    def _evaluate_loader(self, loader, cbks, max_steps=None):
        steps = _length(loader)
        if max_steps is not None and steps is not None:
            steps = min(steps, max_steps)
        steps_before = self._steps_run
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval", max_steps=max_steps)
        self._steps_run = steps_before
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """Runs the loss and metrics over ``eval_data``; returns {name: value}: the metrics
        over all of it and, as in Paddle, the loss of its last batch."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        self._steps_run = 0
        logs = self._evaluate_loader(loader, cbks, max_steps=num_iters)
        missing = [k for k in self._metrics_name() if k not in logs]
        if missing:
            raise ValueError("Model.evaluate: eval_data gave no batches")
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data`` (only its first n input fields are fed):
        a list with one entry per output, each a list of per-batch numpy arrays, or one
        array stacked along axis 0 with ``stack_outputs``."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        self._steps_run = 0
        cbks.on_begin("predict", {"steps": _length(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = [list(per_output) for per_output in zip(*outputs)]
        if stack_outputs:
            outputs = [np.vstack(per_output) for per_output in outputs]
        cbks.on_end("predict", logs)
        return outputs
