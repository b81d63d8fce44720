"""paddle.metric.Auc (bucketed ROC AUC) and the functional paddle.metric.accuracy,
compared with Paddle on the same inputs."""
import numpy as np
import pytest

import skiff
from skiff.metric import Auc, accuracy


def _batches(seed, n=3, rows=50):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p1 = rng.random((rows, 1))
        labels = (rng.random((rows, 1)) < p1).astype("int64")
        yield np.concatenate([1 - p1, p1], axis=1), labels


@pytest.mark.parametrize("num_thresholds", [4095, 7, 1])
def test_auc_matches_paddle(num_thresholds, paddle):
    ours, theirs = Auc(num_thresholds=num_thresholds), paddle.metric.Auc(
        num_thresholds=num_thresholds)
    for preds, labels in _batches(num_thresholds):
        ours.update(skiff.to_tensor(preds), labels)
        theirs.update(preds, labels)
        assert ours.accumulate() == pytest.approx(theirs.accumulate(), rel=1e-12)
    assert ours.name() == theirs.name() == "auc"
    ours.reset()
    assert ours.accumulate() == 0.0


def test_auc_is_exact_without_ties():
    auc = Auc()
    scores = np.array([0.1, 0.35, 0.4, 0.8, 0.9])
    labels = np.array([0, 1, 0, 1, 1])
    auc.update(np.stack([1 - scores, scores], 1), labels[:, None])
    assert auc.accumulate() == pytest.approx(5 / 6)
    only_positive = Auc(name="x")
    only_positive.update(np.array([[0.2, 0.8]]), np.array([[1]]))
    assert only_positive.accumulate() == 0.0 and only_positive.name() == "x"


def test_auc_errors():
    with pytest.raises(ValueError, match="Auc.*curve"):
        Auc(curve="PR")
    with pytest.raises(ValueError, match="labels"):
        Auc().update(np.array([[0.5, 0.5]]), [1])
    with pytest.raises(ValueError, match="Auc.update.*preds"):
        Auc().update(np.array([0.5, 0.5]), np.array([[1], [0]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Auc().update(np.array([[0.5, 1.5]]), np.array([[1]]))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_accuracy_matches_paddle(k, paddle):
    rng = np.random.default_rng(k)
    scores = rng.standard_normal((20, 6)).astype("float32")
    labels = rng.integers(0, 6, (20, 1))
    ours = accuracy(skiff.to_tensor(scores), skiff.to_tensor(labels), k=k)
    ref = paddle.metric.accuracy(paddle.to_tensor(scores), paddle.to_tensor(labels), k=k)
    assert ours.shape == [] and ours.dtype == skiff.float32
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-6)
    correct, total = skiff.zeros([1], "int32"), skiff.zeros([1], "int32")
    accuracy(skiff.to_tensor(scores), skiff.to_tensor(labels.astype("int32")), k, correct,
             total)
    assert int(total.numpy()[0]) == 20
    assert int(correct.numpy()[0]) == round(float(ref.numpy()) * 20)


def test_accuracy_in_a_static_program():
    import skiff.static as st
    scores = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
    labels = np.arange(8, dtype="int64").reshape(8, 1) % 4
    eager = accuracy(skiff.to_tensor(scores), skiff.to_tensor(labels), 2).numpy()
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x, y = st.data("x", [None, 4], "float32"), st.data("y", [None, 1], "int64")
            acc = accuracy(x, y, k=2)
            (out,) = st.Executor().run(main, feed={"x": scores, "y": labels}, fetch_list=[acc])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(np.asarray(out), eager)


def test_accuracy_errors():
    with pytest.raises(ValueError, match="accuracy: k"):
        accuracy(skiff.ones([2, 3]), skiff.zeros([2, 1], "int64"), k=0)
    with pytest.raises(ValueError, match=r"accuracy: input must be \[N, C\]"):
        accuracy(skiff.ones([3]), skiff.zeros([3, 1], "int64"))
