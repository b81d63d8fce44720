"""Likelihood and overlap losses (paddle.nn.functional): poisson_nll_loss,
gaussian_nll_loss, sigmoid_focal_loss and dice_loss."""
import math

from ... import _C
from ... import _C_ops
from ...framework.tensor_params import FLOATING, TENSOR, accepts
from ...framework.mode import mode
from ...framework.arguments import dtype_name_of
from .loss import reduce_loss
from ...tensor.manipulation import squeeze
from ...tensor.math import add, multiply, scale, subtract
from ...tensor.scalars import constant_like
from .activation import sigmoid

__all__ = ["poisson_nll_loss", "gaussian_nll_loss", "sigmoid_focal_loss", "dice_loss"]


def _check_reduction(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")


@accepts(input=FLOATING)
def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean",
                     name=None):
    """Poisson negative log-likelihood: exp(input) - label * input (log_input), else
    input - label * log(input + epsilon); ``full`` adds the Stirling term where label > 1."""
    if epsilon <= 0:
        raise ValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    _check_reduction(reduction, "poisson_nll_loss")
    if list(input.shape) != list(label.shape):
        raise ValueError(f"poisson_nll_loss: input {list(input.shape)} and label "
                         f"{list(label.shape)} must have the same shape")
    if log_input:
        loss = subtract(_C_ops.exp(input), multiply(label, input))
    else:
        loss = subtract(input, multiply(label, _C_ops.log(scale(input, 1.0, float(epsilon)))))
    if full:
        big = _C_ops.greater_than(label, constant_like(label, 1.0))
        safe = _C_ops.where(big, label, constant_like(label, 1.0))
        log_safe = _C_ops.log(safe)
        stirling = add(
            subtract(multiply(safe, log_safe), safe),
            scale(log_safe, 0.5, 0.5 * math.log(2 * math.pi)),
        )
        loss = add(loss, _C_ops.where(big, stirling, constant_like(stirling, 0.0)))
    return reduce_loss(loss, reduction, "poisson_nll_loss")


@accepts(variance=TENSOR)
def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """0.5 * (log(var) + (input - label)^2 / var) (+ 0.5 log(2 pi) with ``full``), var =
    max(variance, epsilon); variance has input's shape, or it without (or with size 1 at)
    the last dim."""
    _check_reduction(reduction, "gaussian_nll_loss")
    in_shape, var_shape = list(input.shape), list(variance.shape)
    if var_shape != in_shape:
        if var_shape == in_shape[:-1]:
            variance = _C_ops.unsqueeze(variance, axes=[-1])
        elif not (var_shape[:-1] == in_shape[:-1] and var_shape[-1] == 1):
            raise ValueError(f"gaussian_nll_loss: variance {var_shape} does not fit input "
                             f"{in_shape}")
    for what, t in (("input", input), ("label", label), ("variance", variance)):
        if dtype_name_of(t) not in ("float32", "float64"):
            raise ValueError(f"gaussian_nll_loss: {what} must be float32 or float64, got "
                             f"{dtype_name_of(t)}")
    if not mode.static and (variance.numpy() < 0).any():
        raise ValueError("gaussian_nll_loss: variance has negative entries")
    var = _C_ops.clip(variance, min=float(epsilon))
    loss = scale(
        add(
            _C_ops.log(var),
            _C_ops.elementwise_div(_C_ops.square(subtract(input, label)), var),
        ),
        0.5,
        0.5 * math.log(2 * math.pi) if full else 0.0,
    )
    return reduce_loss(loss, reduction, "gaussian_nll_loss")


@accepts(logit=FLOATING)
def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """Focal loss alpha_t * (1 - p_t)^gamma * bce(logit, label), p = sigmoid(logit),
    divided by ``normalizer`` (a one-element tensor) when given, then reduced."""
    _check_reduction(reduction, "sigmoid_focal_loss")
    if normalizer is not None and len(normalizer.shape) > 1:
        raise ValueError(f"sigmoid_focal_loss: normalizer must have 0 or 1 dims, got shape "
                         f"{list(normalizer.shape)}")
    if list(logit.shape) != list(label.shape):
        raise _C.Error(f"sigmoid_focal_loss: logit {list(logit.shape)} and label "
                       f"{list(label.shape)} must have the same shape")
    bce = _C_ops.sigmoid_cross_entropy_with_logits(logit, label, ignore_index=-100, normalize=False)
    p = sigmoid(logit)
    one_minus_p, one_minus_y = scale(p, -1.0, 1.0), scale(label, -1.0, 1.0)
    p_t = add(multiply(p, label), multiply(one_minus_p, one_minus_y))
    alpha_t = scale(label, 2.0 * alpha - 1.0, 1.0 - alpha)  # alpha y + (1 - alpha)(1 - y)
    modulation = _C_ops.pow(scale(p_t, -1.0, 1.0), factor=float(gamma))
    loss = multiply(multiply(alpha_t, modulation), bce)
    if normalizer is not None:
        loss = _C_ops.elementwise_div(loss, normalizer)
    return reduce_loss(loss, reduction, "sigmoid_focal_loss")


@accepts(input=FLOATING)
def dice_loss(input, label, epsilon=1e-05, name=None):
    """1 - 2 |input ∩ label| / (|input| + |label| + epsilon) per sample, averaged; input
    [N, ..., C] probabilities, label [N, ..., 1] class ids."""
    in_shape, label_shape = list(input.shape), list(label.shape)
    if len(in_shape) < 2 or len(in_shape) != len(label_shape) or label_shape[-1] != 1 or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(in_shape[:-1], label_shape)):
        raise ValueError(f"dice_loss: expected input [N, ..., C] and label [N, ..., 1], got "
                         f"{in_shape} and {label_shape}")
    if dtype_name_of(label) not in ("int32", "int64"):
        raise ValueError(f"dice_loss: label must be int32 or int64, got {dtype_name_of(label)}")
    hot = _C_ops.one_hot(squeeze(label, [-1]), depth=int(in_shape[-1]), dtype=dtype_name_of(input))
    axes = list(range(1, len(in_shape)))
    inter = _C_ops.reduce_sum(multiply(input, hot), dim=axes, keep_dim=False, reduce_all=False)
    denom = add(
        _C_ops.reduce_sum(input, dim=axes, keep_dim=False, reduce_all=False),
        _C_ops.reduce_sum(hot, dim=axes, keep_dim=False, reduce_all=False),
    )
    score = scale(_C_ops.elementwise_div(inter, scale(denom, 1.0, float(epsilon))), -2.0, 1.0)
    return _C_ops.reduce_mean(score, dim=[], keep_dim=False, reduce_all=True)
