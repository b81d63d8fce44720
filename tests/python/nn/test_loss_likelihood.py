"""Likelihood and overlap losses (skiff/nn/functional/loss_likelihood.py and their
layers: poisson_nll, gaussian_nll, sigmoid_focal, dice): values and gradients against
PyTorch (Paddle where torch has none)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor


def _pair(x, grad=True):
    return tensor(x, grad), torch_tensor(x, grad)


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
