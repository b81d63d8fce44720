"""Margin, embedding, likelihood and overlap losses (soft_margin, multi_label_soft_margin,
multi_margin, cosine_embedding, triplet_margin(_with_distance), poisson_nll, gaussian_nll,
sigmoid_focal, dice): values and gradients against PyTorch (Paddle where torch has none),
the layer classes, a static program, and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager

REDUCTIONS = ["none", "mean", "sum"]


def _signs(*shape, seed=3):
    return np.where(np.random.default_rng(seed).random(shape) > 0.5, 1.0, -1.0)


def _pair(x, grad=True):
    return tensor(x, grad), torch_tensor(x, grad)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction):
    (xs, xt), y = _pair(rand(4, 5) * 3), _signs(4, 5)
    compare(F.soft_margin_loss(xs, tensor(y), reduction),
            TF.soft_margin_loss(xt, torch.tensor(y), reduction=reduction))
    close(xs.grad, xt.grad)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multi_label_soft_margin_loss(reduction):
    (xs, xt), y = _pair(rand(4, 6) * 4), (rand(4, 6, seed=2) > 0).astype("float64")
    w = rand(6, seed=5, low=0.1)
    compare(F.multi_label_soft_margin_loss(xs, tensor(y), tensor(w), reduction),
            TF.multilabel_soft_margin_loss(xt, torch.tensor(y), torch.tensor(w),
                                           reduction=reduction))
    close(xs.grad, xt.grad)


@pytest.mark.parametrize("p,margin,weighted,reduction",
                         [(1, 1.0, False, "mean"), (2, 0.5, True, "none"),
                          (1, 2.0, True, "sum"), (2, 1.0, False, "sum")])
def test_multi_margin_loss(p, margin, weighted, reduction):
    xs, xt = _pair(rand(5, 4))
    y = np.array([0, 3, 1, 2, 3])
    w = rand(4, seed=8, low=0.2) if weighted else None
    compare(F.multi_margin_loss(xs, tensor(y), p, margin, None if w is None else tensor(w),
                                reduction),
            TF.multi_margin_loss(xt, torch.tensor(y), p, margin,
                                 None if w is None else torch.tensor(w), reduction=reduction))
    close(xs.grad, xt.grad)


@pytest.mark.parametrize("margin,reduction", [(0.0, "mean"), (0.3, "none"), (-0.2, "sum")])
def test_cosine_embedding_loss(margin, reduction):
    (as_, at), (bs, bt) = _pair(rand(6, 5)), _pair(rand(6, 5, seed=1))
    y = _signs(6).astype("int64")
    compare(F.cosine_embedding_loss(as_, bs, tensor(y), margin, reduction),
            TF.cosine_embedding_loss(at, bt, torch.tensor(y), margin, reduction=reduction))
    close(as_.grad, at.grad, rtol=1e-7, atol=1e-9)
    close(bs.grad, bt.grad, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("p,swap,reduction", [(2, False, "mean"), (1, True, "none"),
                                              (3, False, "sum"), (2, True, "mean")])
def test_triplet_margin_loss(p, swap, reduction):
    pairs = [_pair(rand(5, 4, seed=s)) for s in range(3)]
    compare(F.triplet_margin_loss(*(s for s, _ in pairs), margin=0.8, p=p, swap=swap,
                                  reduction=reduction),
            TF.triplet_margin_loss(*(t for _, t in pairs), margin=0.8, p=p, eps=1e-6,
                                   swap=swap, reduction=reduction))
    for s, t in pairs:
        close(s.grad, t.grad)


def test_triplet_margin_with_distance_loss():
    pairs = [_pair(rand(5, 4, seed=s)) for s in range(3)]
    compare(F.triplet_margin_with_distance_loss(*(s for s, _ in pairs)),
            TF.triplet_margin_with_distance_loss(*(t for _, t in pairs)))
    for s, t in pairs:
        close(s.grad, t.grad)
    pairs = [_pair(rand(5, 4, seed=s)) for s in range(3)]

    def ours(a, b):
        return 1.0 - F.cosine_similarity(a, b, axis=-1)

    def theirs(a, b):
        return 1.0 - TF.cosine_similarity(a, b, dim=-1)

    loss = nn.TripletMarginWithDistanceLoss(ours, margin=0.5, swap=True, reduction="sum")
    compare(loss(*(s for s, _ in pairs)),
            TF.triplet_margin_with_distance_loss(*(t for _, t in pairs), distance_function=theirs,
                                                 margin=0.5, swap=True, reduction="sum"))
    for s, t in pairs:
        close(s.grad, t.grad)


@pytest.mark.parametrize("log_input,full,reduction", [(True, False, "mean"),
                                                      (False, True, "none"),
                                                      (True, True, "sum")])
def test_poisson_nll_loss(log_input, full, reduction):
    x = rand(4, 5, low=0.1, high=2.0)
    xs, xt = _pair(x)
    y = np.floor(rand(4, 5, seed=4, low=0.0, high=4.0))
    compare(F.poisson_nll_loss(xs, tensor(y), log_input, full, 1e-8, reduction),
            TF.poisson_nll_loss(xt, torch.tensor(y), log_input, full, eps=1e-8,
                                reduction=reduction))
    close(xs.grad, xt.grad)


@pytest.mark.parametrize("var_shape,full,reduction", [((4, 3), False, "mean"),
                                                      ((4,), True, "none"),
                                                      ((4, 1), False, "sum")])
def test_gaussian_nll_loss(var_shape, full, reduction):
    (xs, xt), y = _pair(rand(4, 3)), rand(4, 3, seed=1)
    vs, vt = _pair(rand(*var_shape, seed=2, low=0.1, high=2.0))
    compare(F.gaussian_nll_loss(xs, tensor(y), vs, full, 1e-6, reduction),
            TF.gaussian_nll_loss(xt, torch.tensor(y), vt, full, 1e-6, reduction))
    close(xs.grad, xt.grad)
    close(vs.grad, vt.grad)


def _focal_torch(x, y, normalizer, alpha, gamma, reduction):
    p = torch.sigmoid(x)
    bce = TF.binary_cross_entropy_with_logits(x, y, reduction="none")
    p_t = p * y + (1 - p) * (1 - y)
    loss = (alpha * y + (1 - alpha) * (1 - y)) * (1 - p_t) ** gamma * bce
    if normalizer is not None:
        loss = loss / normalizer
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


@pytest.mark.parametrize("reduction,normalized", [("sum", False), ("mean", True),
                                                  ("none", True)])
def test_sigmoid_focal_loss(reduction, normalized, paddle):
    x, y = rand(4, 3) * 3, (rand(4, 3, seed=1) > 0).astype("float64")
    xs, xt = _pair(x)
    norm = np.array([3.0]) if normalized else None
    compare(F.sigmoid_focal_loss(xs, tensor(y), None if norm is None else tensor(norm),
                                 0.3, 1.5, reduction),
            _focal_torch(xt, torch.tensor(y), None if norm is None else torch.tensor(norm),
                         0.3, 1.5, reduction))
    close(xs.grad, xt.grad)
    ref = paddle.nn.functional.sigmoid_focal_loss(
        paddle.to_tensor(x), paddle.to_tensor(y),
        None if norm is None else paddle.to_tensor(norm), 0.3, 1.5, reduction)
    close(F.sigmoid_focal_loss(tensor(x), tensor(y), None if norm is None else tensor(norm),
                               0.3, 1.5, reduction), ref.numpy())


def test_dice_loss_matches_paddle(paddle):
    x = np.abs(rand(3, 4, 5))
    x = x / x.sum(-1, keepdims=True)
    y = np.random.default_rng(0).integers(0, 5, (3, 4, 1))
    xs = tensor(x, True)
    ours = F.dice_loss(xs, tensor(y))
    xp = paddle.to_tensor(x, stop_gradient=False)
    ref = paddle.nn.functional.dice_loss(xp, paddle.to_tensor(y))
    close(ours, ref.numpy())
    ours.backward()
    ref.backward()
    close(xs.grad, xp.grad.numpy())


def test_loss_layers_match_functions():
    x, y = rand(4, 5), _signs(4, 5)
    close(nn.SoftMarginLoss("sum")(tensor(x), tensor(y)),
          F.soft_margin_loss(tensor(x), tensor(y), "sum"))
    close(nn.MultiLabelSoftMarginLoss()(tensor(x), tensor((y > 0) * 1.0)),
          F.multi_label_soft_margin_loss(tensor(x), tensor((y > 0) * 1.0)))
    labels = np.array([0, 1, 4, 2])
    close(nn.MultiMarginLoss(p=2, margin=0.5)(tensor(x), tensor(labels)),
          TF.multi_margin_loss(torch.tensor(x), torch.tensor(labels), 2, 0.5))
    close(nn.CosineEmbeddingLoss(0.1)(tensor(x), tensor(y), tensor(np.array([1, -1, 1, -1]))),
          TF.cosine_embedding_loss(torch.tensor(x), torch.tensor(y),
                                   torch.tensor([1, -1, 1, -1]), 0.1))
    a, p, n = (rand(4, 5, seed=s) for s in range(3))
    close(nn.TripletMarginLoss(margin=0.3, p=1.0)(tensor(a), tensor(p), tensor(n)),
          TF.triplet_margin_loss(torch.tensor(a), torch.tensor(p), torch.tensor(n), 0.3, 1.0))
    pos = np.abs(x) + 0.1
    close(nn.PoissonNLLLoss(log_input=False)(tensor(pos), tensor(np.abs(y))),
          TF.poisson_nll_loss(torch.tensor(pos), torch.tensor(np.abs(y)), log_input=False))
    close(nn.GaussianNLLLoss(full=True)(tensor(x), tensor(y), tensor(pos)),
          TF.gaussian_nll_loss(torch.tensor(x), torch.tensor(y), torch.tensor(pos), full=True))


def test_losses_in_a_static_program():
    feeds = {"x": rand(4, 5, dtype="float32"), "y": rand(4, 5, seed=1, dtype="float32")}
    labels = np.array([[0], [3], [1], [4]], "int64")

    def fn(x, y):
        total = F.soft_margin_loss(x, y) + F.multi_label_soft_margin_loss(x, y)
        total = total + F.triplet_margin_loss(x, y, x * 0.5) + F.poisson_nll_loss(x, y)
        total = total + F.gaussian_nll_loss(x, y, x * x + 0.5) + F.sigmoid_focal_loss(x, y)
        total = total + F.cosine_embedding_loss(x, y, skiff.full([4], 1, "int64"))
        return total + F.dice_loss(F.softmax(x), skiff.to_tensor(labels))

    assert_static_matches_eager(fn, feeds, ["x", "y"], rtol=1e-4, atol=1e-5)


def test_loss_errors():
    x = tensor(rand(3, 4))
    with pytest.raises(ValueError, match="soft_margin_loss.*reduction"):
        F.soft_margin_loss(x, x, "avg")
    with pytest.raises(ValueError, match="soft_margin_loss.*same shape"):
        F.soft_margin_loss(x, tensor(rand(3, 5)))
    with pytest.raises(ValueError, match="cosine_embedding_loss.*1-D"):
        F.cosine_embedding_loss(x, x, x)
    with pytest.raises(ValueError, match="triplet_margin_loss.*margin"):
        F.triplet_margin_loss(x, x, x, margin=-1.0)
    with pytest.raises(ValueError, match="poisson_nll_loss.*epsilon"):
        F.poisson_nll_loss(x, x, epsilon=0.0)
    with pytest.raises(ValueError, match="gaussian_nll_loss.*variance"):
        F.gaussian_nll_loss(x, x, tensor(rand(2, 4)))
    with pytest.raises(ValueError, match="gaussian_nll_loss.*negative"):
        F.gaussian_nll_loss(x, x, tensor(-np.ones((3, 4))))
    with pytest.raises(ValueError, match="dice_loss.*label"):
        F.dice_loss(x, tensor(np.zeros((3, 4), "int64")))
    with pytest.raises(ValueError, match="multi_margin_loss.*weight"):
        F.multi_margin_loss(x, tensor(np.array([0, 1, 2])), weight=tensor(rand(3)))
    with pytest.raises(ValueError, match="MultiMarginLoss.*reduction"):
        nn.MultiMarginLoss(reduction="avg")
