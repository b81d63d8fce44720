"""paddle.static's accuracy and auc (skiff/static/metrics.py) against PaddlePaddle's
metrics; auc needs static mode."""
import numpy as np
import pytest

import skiff

rng = np.random.default_rng(5)


def test_accuracy_and_auc_match_paddle_metrics(static):
    paddle = pytest.importorskip("paddle")
    st = static
    x = st.data("x", [None, 2], "float32")
    y = st.data("y", [None, 1], "int64")
    auc_all, auc_batch, stats = st.auc(x, y, num_thresholds=200, slide_steps=2)
    acc = st.accuracy(x, y)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    batches = []
    for _ in range(3):
        p = rng.random((16, 1)).astype("float32")
        xx = np.concatenate([1 - p, p], 1)
        yy = (rng.random((16, 1)) < p).astype("int64")
        batches.append((xx, yy))
        got = exe.run(st.default_main_program(), feed={"x": xx, "y": yy},
                      fetch_list=[auc_all, auc_batch, acc])
        whole, recent = paddle.metric.Auc(num_thresholds=200), paddle.metric.Auc(
            num_thresholds=200)
        for bx, by in batches:
            whole.update(bx, by)
        for bx, by in batches[-2:]:
            recent.update(bx, by)
        np.testing.assert_allclose(got[0], whole.accumulate(), rtol=1e-12)
        np.testing.assert_allclose(got[1], recent.accumulate(), rtol=1e-12)
        ref_acc = paddle.metric.accuracy(paddle.to_tensor(xx), paddle.to_tensor(yy)).numpy()
        np.testing.assert_allclose(got[2], ref_acc, rtol=1e-6)
    assert len(stats) == 4
    with pytest.raises(ValueError, match="curve"):
        st.auc(x, y, curve="PR")
    with pytest.raises(ValueError, match="input"):
        st.auc(st.data("z", [None, 3], "float32"), y)


def test_auc_needs_static_mode():
    import skiff.static as st
    with pytest.raises(skiff.Error, match="enable_static"):
        st.auc(skiff.to_tensor(np.zeros((2, 2), "float32")),
               skiff.to_tensor(np.zeros((2, 1), "int64")))
