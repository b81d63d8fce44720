"""ctc_loss / CTCLoss and rnnt_loss / RNNTLoss (skiff/nn/functional/loss_sequence.py)
against Paddle: values and gradients for each reduction, norm_by_times, FastEmit,
padded labels of several lengths, and errors."""
import numpy as np
import pytest

import skiff
import skiff.nn.functional as F

from paddle_pair import assert_same, run_both

paddle = pytest.importorskip("paddle")

RNG = np.random.default_rng(3)
LOGITS = RNG.standard_normal((7, 3, 5)).astype("float32")
LABELS = np.array([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 0]], "int32")
IN_LEN = np.array([7, 5, 7], "int64")
LAB_LEN = np.array([4, 2, 3], "int64")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("norm_by_times", [False, True])
def test_ctc_loss_matches_paddle(reduction, norm_by_times):
    mine, ref = run_both(paddle, "ctc_loss", [LOGITS, LABELS, IN_LEN, LAB_LEN], grads=(0,),
                         blank=0, reduction=reduction, norm_by_times=norm_by_times)
    assert_same(mine, ref, rtol=1e-4, atol=1e-5)


def test_ctc_loss_other_blank_float64_and_layer():
    x = RNG.standard_normal((6, 2, 4))
    labels = np.array([[0, 1, 2], [2, 2, 0]], "int32")
    lens = [np.array([6, 6], "int64"), np.array([3, 1], "int64")]
    mine, ref = run_both(paddle, "ctc_loss", [x, labels] + lens, grads=(0,), blank=3)
    assert_same(mine, ref, rtol=1e-9, atol=1e-10)
    layer = skiff.nn.CTCLoss(blank=3, reduction="sum")
    got = layer(skiff.to_tensor(x), skiff.to_tensor(labels), *map(skiff.to_tensor, lens))
    want = paddle.nn.CTCLoss(blank=3, reduction="sum")(
        paddle.to_tensor(x), paddle.to_tensor(labels), *map(paddle.to_tensor, lens))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-9)


def test_ctc_loss_impossible_alignment():
    x = skiff.to_tensor(LOGITS[:2])  # 2 steps cannot hold the 4 labels (with a repeat)
    args = [skiff.to_tensor(LABELS), skiff.to_tensor(np.array([2, 2, 2], "int64")),
            skiff.to_tensor(LAB_LEN)]
    assert np.isinf(F.ctc_loss(x, *args, reduction="none").numpy()[0])
    x.stop_gradient = False
    out = F.ctc_loss(x, *args, reduction="none", zero_infinity=True)
    assert out.numpy()[0] == 0.0
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


RNNT_ACTS = RNG.standard_normal((2, 4, 3, 5))
RNNT_LABELS = np.array([[1, 2], [3, 0]], "int32")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("fastemit_lambda", [0.0, 0.001, 0.5])
def test_rnnt_loss_matches_paddle(reduction, fastemit_lambda):
    lens = [np.array([4, 3], "int32"), np.array([2, 1], "int32")]
    mine, ref = run_both(paddle, "rnnt_loss", [RNNT_ACTS, RNNT_LABELS] + lens, grads=(0,),
                         reduction=reduction, fastemit_lambda=fastemit_lambda)
    assert_same(mine, ref, rtol=1e-7, atol=1e-9)


def test_rnnt_loss_float32_blank_and_layer():
    acts = RNNT_ACTS.astype("float32")
    lens = [np.array([4, 4], "int32"), np.array([2, 2], "int32")]
    labels = np.array([[1, 2], [3, 1]], "int32")
    mine, ref = run_both(paddle, "rnnt_loss", [acts, labels] + lens, grads=(0,), blank=4,
                         fastemit_lambda=0.0)
    assert_same(mine, ref, rtol=1e-5, atol=1e-5)
    got = skiff.nn.RNNTLoss(blank=4, reduction="sum")(
        *[skiff.to_tensor(a) for a in [acts, labels] + lens])
    want = paddle.nn.RNNTLoss(blank=4, reduction="sum")(
        *[paddle.to_tensor(a) for a in [acts, labels] + lens])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


def test_loss_layers_live_in_nn_layer_loss():
    import skiff.nn.layer.loss as loss

    for name in ("CTCLoss", "RNNTLoss", "PoissonNLLLoss", "GaussianNLLLoss", "HSigmoidLoss",
                 "TripletMarginLoss", "MultiLabelMarginLoss"):
        assert getattr(loss, name) is getattr(skiff.nn, name)


def test_errors():
    x, lab = skiff.to_tensor(LOGITS), skiff.to_tensor(LABELS)
    il, ll = skiff.to_tensor(IN_LEN), skiff.to_tensor(LAB_LEN)
    with pytest.raises(ValueError, match="reduction"):
        F.ctc_loss(x, lab, il, ll, reduction="avg")
    with pytest.raises(ValueError, match="blank"):
        F.ctc_loss(x, lab, il, ll, blank=5)
    with pytest.raises(ValueError, match="input_lengths"):
        F.ctc_loss(x, lab, skiff.to_tensor(np.array([8, 1, 1], "int64")), ll)
    with pytest.raises(ValueError, match="one length per sample"):
        F.ctc_loss(x, lab, il[:2], ll)
    with pytest.raises(TypeError, match="labels must be int32 or int64"):
        F.ctc_loss(x, skiff.to_tensor(LABELS.astype("float32")), il, ll)
    acts = skiff.to_tensor(RNNT_ACTS)
    with pytest.raises(ValueError, match="label must be"):
        F.rnnt_loss(acts, skiff.to_tensor(np.zeros((2, 3), "int32")),
                    skiff.to_tensor(np.array([4, 4], "int32")),
                    skiff.to_tensor(np.array([2, 2], "int32")))
    with pytest.raises(ValueError, match="4-D"):
        F.rnnt_loss(x, lab, il, ll)
