"""Metrics in Paddle's `paddle.metric` API: Metric, Accuracy, Precision, Recall, Auc (numpy
based) and the functional accuracy (an op)."""

from ..framework.tensor_params import check_classes as _check_classes
from ..framework.tensor_params import check_exports as _check_exports
from .auc import Auc
from .functional import accuracy
from .metrics import Accuracy, Metric, Precision, Recall

__all__ = ["Accuracy", "Auc", "Metric", "Precision", "Recall", "accuracy"]

_check_exports(globals())  # the public functions check their Tensor parameters
_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
