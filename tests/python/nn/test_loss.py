"""Loss layers and functions (skiff/nn/functional/loss.py, nn/layer/loss.py) against
PyTorch (Paddle where only Paddle defines it): values for every reduction and the gradients
of the inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, rand, tensor, torch_tensor

REDUCTIONS = ["mean", "sum", "none"]


def _check(sk_loss, th_loss, sk_inputs, th_inputs, dtype="float64"):
    """Same value; then backpropagate (a weighting for 'none') and compare gradients."""
    close(sk_loss, th_loss, dtype, what="loss")
    w = rand(*th_loss.shape, seed=42, dtype=dtype) if th_loss.dim() else np.array(1.0, dtype)
    skiff.sum(sk_loss * tensor(w)).backward()
    (th_loss * torch.tensor(w)).sum().backward()
    for a, b in zip(sk_inputs, th_inputs):
        close(a.grad, b.grad, dtype, what="gradient")


def _labels(n, c, seed=0, ignore=None):
    labels = np.random.default_rng(seed).integers(0, c, size=n).astype("int64")
    if ignore is not None:
        labels[::3] = ignore
    return labels


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_hard_labels(reduction, weighted):
    x = rand(6, 5, low=-3, high=3)
    y = _labels(6, 5)
    weight = rand(5, seed=3, low=0.2, high=2.0) if weighted else None
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = nn.CrossEntropyLoss(weight=None if weight is None else tensor(weight),
                               reduction=reduction)(xs, tensor(y))
    ref = TF.cross_entropy(xt, torch.tensor(y), None if weight is None else torch.tensor(weight),
                           reduction=reduction)
    _check(loss, ref, [xs], [xt])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_shape", [(6, 1), (6,)])
def test_cross_entropy_ignore_index_and_label_shapes(reduction, label_shape):
    # 'mean' and 'sum' take the fused softmax_with_cross_entropy op; 'mean' divides by the
    # labels not ignored
    x = rand(6, 4, low=-3, high=3)
    y = _labels(6, 4, ignore=2)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = F.cross_entropy(xs, tensor(y.reshape(label_shape)), ignore_index=2,
                           reduction=reduction)
    ref = TF.cross_entropy(xt, torch.tensor(y), ignore_index=2, reduction=reduction)
    if reduction == "none" and label_shape == (6,):
        assert loss.shape == [6]
    elif reduction == "none":
        assert loss.shape == [6, 1]  # the label's shape, as Paddle
        ref = ref.reshape(6, 1)
    _check(loss, ref, [xs], [xt])


def test_cross_entropy_higher_rank_and_axis():
    x = rand(2, 3, 5, low=-2, high=2)  # classes last
    y = _labels(6, 5).reshape(2, 3)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = F.cross_entropy(xs, tensor(y), reduction="none")
    _check(loss, TF.cross_entropy(xt.permute(0, 2, 1), torch.tensor(y), reduction="none"),
           [xs], [xt])
    # classes on axis 1
    x1 = rand(2, 5, 3, low=-2, high=2)
    xs, xt = tensor(x1, True), torch_tensor(x1, True)
    _check(F.cross_entropy(xs, tensor(y), axis=1), TF.cross_entropy(xt, torch.tensor(y)),
           [xs], [xt])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_soft_labels_and_smoothing(reduction):
    x = rand(4, 5, low=-3, high=3)
    soft = np.random.default_rng(1).dirichlet(np.ones(5), size=4)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = F.cross_entropy(xs, tensor(soft), soft_label=True, reduction=reduction)
    ref = TF.cross_entropy(xt, torch.tensor(soft), reduction=reduction)
    _check(loss, ref.reshape(4, 1) if reduction == "none" else ref, [xs], [xt])
    y = _labels(4, 5)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = F.cross_entropy(xs, tensor(y), label_smoothing=0.1, reduction=reduction)
    ref = TF.cross_entropy(xt, torch.tensor(y), label_smoothing=0.1, reduction=reduction)
    _check(loss, ref.reshape(4, 1) if reduction == "none" else ref, [xs], [xt])


def test_cross_entropy_soft_labels_with_weight_and_without_softmax(paddle):
    x = rand(4, 3, low=0.1, high=1.0, dtype="float32")
    probs = x / x.sum(1, keepdims=True)
    soft = np.random.default_rng(2).dirichlet(np.ones(3), size=4).astype("float32")
    w = np.array([0.5, 1.0, 2.0], "float32")
    got = F.cross_entropy(tensor(x), tensor(soft), weight=tensor(w), soft_label=True)
    want = paddle.nn.functional.cross_entropy(paddle.to_tensor(x), paddle.to_tensor(soft),
                                              weight=paddle.to_tensor(w), soft_label=True)
    close(got, want.numpy(), "float32")
    y = _labels(4, 3)
    got = F.cross_entropy(tensor(probs), tensor(y), use_softmax=False)
    close(got, TF.nll_loss(torch.log(torch.tensor(probs)), torch.tensor(y)), "float32")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    x = rand(5, 4, 3, low=-3, high=0)  # [N, C, d]
    y = _labels(15, 4, ignore=-100).reshape(5, 3)
    w = rand(4, seed=5, low=0.5, high=2)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = nn.NLLLoss(tensor(w), reduction=reduction)(xs, tensor(y))
    _check(loss, TF.nll_loss(xt, torch.tensor(y), torch.tensor(w), reduction=reduction),
           [xs], [xt])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1_smooth_l1(reduction, paddle):
    a, b = rand(3, 4, seed=1), rand(3, 4, seed=2)
    for layer, ref in ((nn.MSELoss(reduction), torch.nn.MSELoss(reduction=reduction)),
                       (nn.L1Loss(reduction), torch.nn.L1Loss(reduction=reduction))):
        xs, ys, xt, yt = tensor(a, True), tensor(b, True), torch_tensor(a, True), torch_tensor(
            b, True)
        _check(layer(xs, ys), ref(xt, yt), [xs, ys], [xt, yt])
    xs, ys = tensor(a * 3, True), tensor(b)
    got = nn.SmoothL1Loss(reduction, delta=0.7)(xs, ys)
    want = paddle.nn.SmoothL1Loss(reduction, delta=0.7)(paddle.to_tensor(a * 3),
                                                        paddle.to_tensor(b))
    close(got, want.numpy(), rtol=1e-6)  # Paddle keeps delta as a float32 attribute
    # Paddle's Huber form equals delta * PyTorch's smooth_l1 with beta = delta
    xt = torch_tensor(a * 3, True)
    ref = 0.7 * TF.smooth_l1_loss(xt, torch.tensor(b), reduction=reduction, beta=0.7)
    _check(got, ref, [xs], [xt])
    # is_huber=False is PyTorch's smooth_l1 itself; HuberLoss is the same class
    assert nn.HuberLoss is nn.SmoothL1Loss
    xs, xt = tensor(a * 3, True), torch_tensor(a * 3, True)
    got = nn.SmoothL1Loss(reduction, delta=0.7, is_huber=False)(xs, ys)
    ref = TF.smooth_l1_loss(xt, torch.tensor(b), reduction=reduction, beta=0.7)
    _check(got, ref, [xs], [xt])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(reduction):
    p = rand(4, 3, low=0.05, high=0.95)
    y = (rand(4, 3, seed=1) > 0).astype("float64")
    w = rand(4, 3, seed=2, low=0.5, high=1.5)
    xs, xt = tensor(p, True), torch_tensor(p, True)
    loss = nn.BCELoss(tensor(w), reduction)(xs, tensor(y))
    _check(loss, TF.binary_cross_entropy(xt, torch.tensor(y), torch.tensor(w),
                                         reduction=reduction), [xs], [xt])
    # saturated probabilities stay finite (log clamped at -100, as PyTorch)
    edge = F.binary_cross_entropy(tensor(np.array([0.0, 1.0])), tensor(np.array([1.0, 0.0])),
                                  reduction="none")
    np.testing.assert_allclose(edge.numpy(), [100.0, 100.0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("with_pos_weight", [False, True])
def test_bce_with_logits(reduction, with_pos_weight):
    x = rand(4, 3, low=-30, high=30)
    y = rand(4, 3, seed=1, low=0, high=1)
    w = rand(4, 3, seed=2, low=0.5, high=1.5)
    pw = rand(3, seed=3, low=0.5, high=3) if with_pos_weight else None
    xs, xt = tensor(x, True), torch_tensor(x, True)
    loss = nn.BCEWithLogitsLoss(tensor(w), reduction,
                                None if pw is None else tensor(pw))(xs, tensor(y))
    ref = TF.binary_cross_entropy_with_logits(xt, torch.tensor(y), torch.tensor(w),
                                              reduction=reduction,
                                              pos_weight=None if pw is None else torch.tensor(pw))
    _check(loss, ref, [xs], [xt])


def test_softmax_with_cross_entropy_returns_both():
    x = rand(3, 4)
    y = _labels(3, 4).reshape(3, 1)
    loss, sm = F.softmax_with_cross_entropy(tensor(x), tensor(y), return_softmax=True)
    close(sm, torch.softmax(torch.tensor(x), -1))
    close(loss, TF.cross_entropy(torch.tensor(x), torch.tensor(y[:, 0]),
                                 reduction="none").reshape(3, 1))


def test_loss_errors():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss("avg")
    with pytest.raises(skiff.Error, match=r"mse_loss.*\[3, 4\].*\[4, 3\]"):
        F.mse_loss(tensor(rand(3, 4)), tensor(rand(4, 3)))
    with pytest.raises(skiff.Error, match=r"cross_entropy.*\[4, 2\].*\[4, 5\]"):
        F.cross_entropy(tensor(rand(4, 5)), tensor(np.zeros([4, 2], "int64")))
    with pytest.raises(skiff.Error, match=r"nll_loss"):
        F.nll_loss(tensor(rand(4, 5)), tensor(np.zeros([4, 5], "int64")))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ranking_and_hinge_losses(reduction):
    a, b = rand(6, seed=1), rand(6, seed=2)
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    xs, xt = tensor(a, True), torch_tensor(a, True)
    loss = nn.MarginRankingLoss(0.2, reduction)(xs, tensor(b), tensor(y))
    _check(loss, TF.margin_ranking_loss(xt, torch.tensor(b), torch.tensor(y), 0.2,
                                        reduction=reduction), [xs], [xt])
    xs, xt = tensor(a, True), torch_tensor(a, True)
    loss = nn.HingeEmbeddingLoss(0.5, reduction)(xs, tensor(y))
    _check(loss, TF.hinge_embedding_loss(xt, torch.tensor(y), 0.5, reduction=reduction),
           [xs], [xt])


def test_log_loss_matches_paddle(paddle):
    p = rand(4, 1, low=0.05, high=0.95, dtype="float32")
    y = (rand(4, 1, seed=1) > 0).astype("float32")
    got = F.log_loss(tensor(p), tensor(y))
    want = paddle.nn.functional.log_loss(paddle.to_tensor(p), paddle.to_tensor(y))
    close(got, want.numpy(), "float32")


@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
def test_kl_div_matches_torch(reduction):
    logp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), size=3))
    target = np.random.default_rng(1).dirichlet(np.ones(4), size=3)
    target[0, 1] = 0.0  # a zero target contributes nothing
    xs, xt = tensor(logp, True), torch_tensor(logp, True)
    loss = nn.KLDivLoss(reduction)(xs, tensor(target))
    ref = TF.kl_div(xt, torch.tensor(target), reduction=reduction)
    close(loss, ref)
    skiff.sum(loss).backward()
    ref.sum().backward()
    close(xs.grad, xt.grad)
    log_t = F.kl_div(tensor(logp), tensor(np.log(target + 1e-3)), reduction, log_target=True)
    close(log_t, TF.kl_div(torch.tensor(logp), torch.tensor(np.log(target + 1e-3)),
                           reduction=reduction, log_target=True))


def test_square_error_cost():
    a, b = rand(3, 2), rand(3, 2, seed=1)
    close(F.square_error_cost(tensor(a), tensor(b)), (a - b) ** 2)
