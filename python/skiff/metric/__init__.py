"""Metrics in Paddle's `paddle.metric` API: Metric, Accuracy, Precision, Recall (numpy based)."""

from .metrics import Accuracy, Metric, Precision, Recall

__all__ = ["Accuracy", "Metric", "Precision", "Recall"]
