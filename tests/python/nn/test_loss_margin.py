"""Margin and embedding losses (skiff/nn/functional/loss_margin.py, loss_multilabel.py and
their layers: soft_margin, multi_label_soft_margin, multi_margin, cosine_embedding,
triplet_margin(_with_distance), multi_label_margin): values and gradients against PyTorch;
with the likelihood losses of test_loss_likelihood.py, their layers against the functions,
a static program, and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor, torch_weighted_grad, weighted_grad
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


rng = np.random.default_rng(7)


def test_multi_label_margin_loss_matches_torch():
    x = rng.standard_normal((4, 5))
    label = np.array([[3, 0, -1, 1, 2], [1, 4, 0, -1, -1], [-1, 1, 1, 1, 1], [2, 2, 4, 0, 1]])
    for reduction in ("none", "mean", "sum"):
        ours = weighted_grad(lambda t: F.multi_label_margin_loss(t, skiff.to_tensor(label), reduction)
                     .reshape([-1]), x)
        ref = torch_weighted_grad(lambda t: torch.nn.functional.multilabel_margin_loss(
            t, torch.tensor(label), reduction=reduction).reshape(-1), x)
        for a, b in zip(ours, ref):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    layer = skiff.nn.MultiLabelMarginLoss("sum")
    np.testing.assert_allclose(layer(skiff.to_tensor(x), skiff.to_tensor(label)).numpy(),
                               torch.nn.functional.multilabel_margin_loss(
                                   torch.tensor(x), torch.tensor(label),
                                   reduction="sum").numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="reduction"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(label), "avg")
    with pytest.raises(ValueError, match="label must be 2-D"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(label[0]))
    with pytest.raises(TypeError, match="int32 or int64"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(x))


def test_multi_label_margin_loss_static():
    x = rng.standard_normal((3, 4))
    label = skiff.to_tensor(np.array([[1, 2, -1, 0], [0, -1, 1, 1], [3, 1, 0, 2]]))
    assert_static_matches_eager(lambda x: F.multi_label_margin_loss(x, label, "none"),
                                {"x": x}, ["x"])


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
