"""paddle.metric.Auc: area under the ROC curve from predictions counted into buckets.

    auc = Auc()
    auc.update(preds, labels)   # preds [N, 2] (column 1: P(positive)), labels [N, 1] 0 / 1
    auc.accumulate()            # the area so far, 0.0 before both classes were seen
"""
import numpy as np

from .._C import OutOfMemoryError
from ..framework import arguments
from .metrics import Metric, _to_numpy

__all__ = ["Auc"]


class Auc(Metric):
    """ROC AUC of binary predictions: each positive-class probability p falls into bucket
    int(p * num_thresholds); the curve through the buckets' cumulative counts, from the
    highest bucket down, is integrated by trapezoids."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        curve = arguments.choice("Auc", "curve", curve, ("ROC",))
        num_thresholds = arguments.count("Auc", "num_thresholds", num_thresholds, low=1)
        self._curve, self._num_thresholds, self._name = curve, num_thresholds, name
        self.reset()

    def update(self, preds, labels):
        """Counts a batch: ``preds`` [N, 2] probabilities (column 1 is the positive
        class), ``labels`` [N] or [N, 1], non-zero for positives."""
        labels = _to_numpy(labels, "labels", "Auc.update", strict=True).reshape(-1)
        preds = _to_numpy(preds, "preds", "Auc.update", strict=True)
        if preds.ndim != 2 or preds.shape[0] != labels.shape[0] or preds.shape[1] < 2:
            raise arguments.ArgumentError(f"Auc.update: expected preds [N, 2] and labels "
                                          f"[N, 1], got {list(preds.shape)} and "
                                          f"{list(labels.shape)}")
        buckets = (preds[:, 1] * self._num_thresholds).astype(np.int64)
        if buckets.size and (buckets.min() < 0 or buckets.max() > self._num_thresholds):
            raise ValueError("Auc.update: the positive-class probabilities must lie in [0, 1]")
        positive = labels.astype(bool)
        size = self._num_thresholds + 1
        self._stat_pos += np.bincount(buckets[positive], minlength=size)
        self._stat_neg += np.bincount(buckets[~positive], minlength=size)

    def accumulate(self):
        """The area under the ROC curve so far (a numpy float64; 0.0 without both
        classes)."""
        tot_pos = np.cumsum(self._stat_pos[::-1])
        tot_neg = np.cumsum(self._stat_neg[::-1])
        if tot_pos[-1] <= 0.0 or tot_neg[-1] <= 0.0:
            return 0.0
        prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
        prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
        area = np.sum((tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0)
        return np.float64(area / tot_pos[-1] / tot_neg[-1])

    def reset(self):
        """Clears the bucket counts."""
        size = self._num_thresholds + 1
        try:
            self._stat_pos, self._stat_neg = np.zeros(size), np.zeros(size)
        except MemoryError:  # numpy's words; this is the machine's limit, named as skiff's
            raise OutOfMemoryError(f"Auc: cannot allocate two float64 counts of "
                                   f"{size} buckets (num_thresholds={self._num_thresholds})") \
                from None

    def name(self):
        """The metric's name."""
        return self._name
