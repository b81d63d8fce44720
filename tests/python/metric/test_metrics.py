"""Metrics, compared with paddle.metric on the same inputs."""

import numpy as np
import pytest

from skiff.metric import Accuracy, Metric, Precision, Recall


class FakeTensor:
    """Stands for a Tensor: only has `.numpy()`."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def numpy(self):
        return self.array


def batches(seed, n=3, rows=16, classes=7):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield (rng.standard_normal((rows, classes)).astype(np.float32),
               rng.integers(0, classes, size=(rows, 1)).astype(np.int64))


@pytest.mark.parametrize("topk", [(1,), (1, 3), (2, 5)])
@pytest.mark.parametrize("label_form", ["column", "flat", "one_hot"])
def test_accuracy_matches_paddle(paddle, topk, label_form):
    ours, theirs = Accuracy(topk=topk), paddle.metric.Accuracy(topk=topk)
    assert ours.name() == theirs.name()
    for pred, label in batches(sum(topk)):
        if label_form == "flat":
            label = label[:, 0]
        elif label_form == "one_hot":
            label = np.eye(pred.shape[1], dtype=np.float32)[label[:, 0]]
        expected = theirs.compute(paddle.to_tensor(pred), paddle.to_tensor(label)).numpy()
        correct = ours.compute(pred, FakeTensor(label))
        np.testing.assert_array_equal(correct, expected)
        assert ours.update(FakeTensor(correct)) == pytest.approx(theirs.update(expected))
    assert ours.accumulate() == pytest.approx(theirs.accumulate())
    ours.reset()
    assert ours.accumulate() == (0.0 if len(topk) == 1 else [0.0] * len(topk))


def test_accuracy_by_hand():
    acc = Accuracy(topk=(1, 2), name="top")
    pred = np.array([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.3, 0.3, 0.4]])
    correct = acc.compute(pred, np.array([1, 2, 1]))
    np.testing.assert_array_equal(correct, [[1, 0], [0, 1], [0, 0]])
    assert acc.update(correct) == pytest.approx([1 / 3, 2 / 3])
    assert acc.name() == ["top_top1", "top_top2"]
    with pytest.raises(ValueError):
        Accuracy(topk=(0,))


def test_precision_and_recall_match_paddle(paddle):
    rng = np.random.default_rng(3)
    ours = [Precision(), Recall()]
    theirs = [paddle.metric.Precision(), paddle.metric.Recall()]
    for _ in range(4):
        preds = rng.random((20, 1))
        preds[:3, 0] = [0.5, 0.5, 1.5 / 3]  # exact halves: floor(x + 0.5) and rint differ
        labels = rng.integers(0, 2, size=(20, 1))
        for mine, ref in zip(ours, theirs):
            mine.update(FakeTensor(preds), labels)
            ref.update(preds, labels)
    for mine, ref in zip(ours, theirs):
        assert mine.accumulate() == pytest.approx(ref.accumulate())
        assert mine.name() == ref.name()


def test_precision_recall_by_hand_and_errors():
    p, r = Precision(), Recall()
    preds = np.array([0.9, 0.2, 0.5, 0.7, 0.1])
    labels = np.array([1, 1, 0, 0, 0])
    p.update(preds, labels)
    r.update(preds, labels)
    assert p.accumulate() == pytest.approx(1 / 3)  # 0.5 rounds up: predicted 0, 2, 3
    assert r.accumulate() == pytest.approx(1 / 2)
    p.reset()
    assert p.accumulate() == 0.0
    with pytest.raises(ValueError, match="Precision.update: preds must be a numpy ndarray"):
        p.update([0.9], np.array([1]))
    with pytest.raises(ValueError, match="one value per sample"):
        r.update(np.zeros(3), np.zeros(4))


def test_metric_base_requires_the_interface():
    class Incomplete(Metric):
        def name(self):
            return "x"

    with pytest.raises(TypeError):
        Incomplete()
    assert Accuracy().compute.__func__ is not Metric.compute
