"""Streaming metrics in Paddle's `paddle.metric` API, computed with numpy.

    acc = Accuracy(topk=(1, 5))
    correct = acc.compute(logits, labels)   # [N, 5] float32 Tensor: 1 where top-k hit the label
    acc.update(correct)                     # returns this batch's [top1, top5]
    acc.accumulate()                        # running [top1, top5] since reset()

Inputs may be numpy arrays or Tensors (anything with a `.numpy()` method). As in Paddle,
`compute` returns a Tensor and the values are numpy float64 scalars (plain 0.0 before any
sample was counted).
"""

import abc

import numpy as np

from ..framework import arguments
from ..tensor.creation import to_tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall"]


def _to_numpy(value, param, fn, strict=False, min_ndim=0):
    """numpy view of `value` (the parameter ``param`` of the method ``fn``, which errors
    name), numbers of at least ``min_ndim`` dims; with ``strict``, only arrays and Tensors
    are accepted (as in Paddle)."""
    if isinstance(value, np.ndarray):
        array = value
    elif callable(getattr(value, "numpy", None)):
        array = np.asarray(value.numpy())
    elif strict:  # a ValueError, as Paddle's
        raise arguments.ArgumentError(f"{fn}: {param} must be a numpy ndarray or Tensor, "
                                      f"got {type(value).__name__}")
    else:
        try:
            array = np.asarray(value)
        except ValueError:  # a ragged list
            array = np.asarray(None)
    if array.dtype.kind not in "biuf":
        raise arguments.ArgumentTypeError(f"{fn}: {param} must hold numbers (an array, a "
                                          f"Tensor or a list), got {type(value).__name__}")
    if array.ndim < min_ndim:
        raise arguments.ArgumentError(f"{fn}: {param} must have at least {min_ndim} dims, got "
                                      f"shape {list(array.shape)}")
    return array


class Metric(abc.ABC):
    """Base of metrics: `compute` maps a batch to statistics (runs with the model's outputs),
    `update` accumulates them, `accumulate` returns the value so far, `reset` clears it.
    """

    @abc.abstractmethod
    def reset(self):
        """Clears the accumulated state."""

    @abc.abstractmethod
    def update(self, *args):
        """Adds one batch's statistics (the outputs of `compute`)."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over everything since the last `reset`."""

    @abc.abstractmethod
    def name(self):
        """The metric's name (a list of names when it returns several values)."""

    def compute(self, *args):
        """Per-batch preprocessing of (predictions, labels); by default returns them unchanged."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy for each k in `topk`.

    Names are [name] for topk=(1,) and [f"{name}_top{k}"] otherwise (name defaults to "acc");
    `update` and `accumulate` return a float for one k and a list for several.
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.topk = tuple(arguments.counts("Accuracy", "topk", topk, low=1))
        if not self.topk:
            raise arguments.ArgumentError(f"Accuracy: topk must hold at least one k, got "
                                          f"{topk!r}")
        self.maxk = max(self.topk)
        base = name or "acc"
        self._name = [base] if self.maxk == 1 else [f"{base}_top{k}" for k in self.topk]
        self.reset()

    def compute(self, pred, label, *args):
        """float32 [..., maxk]: entry j is 1 where the j-th highest score's class is the label.

        `label` holds class ids ([N] or [N, 1]) or, when its last dim is > 1, one-hot or soft
        labels whose argmax is the class.
        """
        pred = _to_numpy(pred, "pred", "Accuracy.compute", min_ndim=1)
        label = _to_numpy(label, "label", "Accuracy.compute", min_ndim=1)
        top = np.argsort(-pred, axis=-1, kind="stable")[..., : self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = label.reshape(-1, 1)
        elif label.shape[-1] != 1:
            label = np.argmax(label, axis=-1)[..., None]
        return to_tensor((top == label.astype(top.dtype)).astype(np.float32))

    def update(self, correct, *args):
        """Adds a `compute` result; returns this batch's accuracy (a numpy float64, or a
        list of them per k; nan for an empty batch)."""
        correct = _to_numpy(correct, "correct", "Accuracy.update", min_ndim=1)
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_correct = float(correct[..., :k].sum())
            accs.append(np.float64(num_correct / num_samples if num_samples else np.nan))
            self.total[i] += num_correct
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [np.float64(t / c) if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


def _binary_pairs(fn, preds, labels, round_fn):
    """Rounded predictions and labels as flat int arrays of equal length (for ``fn``)."""
    preds = _to_numpy(preds, "preds", fn, strict=True)
    labels = _to_numpy(labels, "labels", fn, strict=True)
    rounded = round_fn(preds).astype(np.int32).reshape(-1)
    labels = labels.reshape(-1)
    if rounded.size != labels.size:
        raise arguments.ArgumentError(f"{fn}: preds {list(preds.shape)} and labels "
                                      f"{list(labels.shape)} need one value per sample")
    return rounded, labels


class Precision(Metric):
    """Binary precision tp / (tp + fp); predictions are probabilities rounded at 0.5 (up)."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._name = name
        self.reset()

    def update(self, preds, labels):
        """Counts one batch: preds [N] or [N, 1] scores in [0, 1], labels 0/1 of the same size."""
        rounded, labels = _binary_pairs("Precision.update", preds, labels,
                                        lambda p: np.floor(p + 0.5))
        positive = rounded == 1
        self.tp += int(np.count_nonzero(positive & (labels == 1)))
        self.fp += int(np.count_nonzero(positive & (labels != 1)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); predictions are rounded half to even (np.rint)."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._name = name
        self.reset()

    def update(self, preds, labels):
        """Counts one batch: preds [N] or [N, 1] scores in [0, 1], labels 0/1 of the same size."""
        rounded, labels = _binary_pairs("Recall.update", preds, labels, np.rint)
        actual = labels == 1
        self.tp += int(np.count_nonzero(actual & (rounded == 1)))
        self.fn += int(np.count_nonzero(actual & (rounded != 1)))

    def reset(self):
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        relevant = self.tp + self.fn
        return float(self.tp) / relevant if relevant else 0.0

    def name(self):
        return self._name
