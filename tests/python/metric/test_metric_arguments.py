"""The metrics check their settings and the batches given to compute / update: what holds
no numbers, has too few dims or cannot be allocated is refused naming the metric's method
and the argument (ArgumentTypeError, ArgumentError, OutOfMemoryError)."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError
from skiff.metric import Accuracy, Auc, Precision


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


def test_accuracy_settings_and_batches():
    with _raises(ArgumentError, "Accuracy", "topk", "-2"):
        Accuracy(-2)
    with _raises(ArgumentTypeError, "Accuracy", "topk", "str"):
        Accuracy("-0.0")
    assert Accuracy(5).topk == (5,)
    with _raises(ArgumentTypeError, "Accuracy.update", "correct", "NoneType"):
        Accuracy().update(None)
    with _raises(ArgumentError, "Accuracy.update", "correct", "at least 1 dims"):
        Accuracy().update(False, False)
    with _raises(ArgumentError, "Accuracy.compute", "label", "at least 1 dims"):
        Accuracy().compute(skiff.ones([2, 3]), -2**31)
    assert Accuracy().update(np.ones((4, 1))) == 1.0


def test_auc_and_precision():
    with _raises(ArgumentTypeError, "Auc", "num_thresholds", "tuple"):
        Auc(num_thresholds=(0.5,))
    with pytest.raises(skiff.OutOfMemoryError, match="^Auc: .*num_thresholds"):
        Auc(num_thresholds=2**40)
    with _raises(ArgumentTypeError, "Precision.update", "preds", "hold numbers"):
        Precision().update(np.array(["a"]), np.ones(1))
