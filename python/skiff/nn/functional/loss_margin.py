"""Margin and embedding losses (paddle.nn.functional): soft_margin_loss,
multi_label_soft_margin_loss, multi_margin_loss, cosine_embedding_loss,
triplet_margin_loss and triplet_margin_with_distance_loss."""
from ... import _C_ops
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from .loss import reduce_loss
from ...tensor.math import add, cast, multiply, scale, subtract
from ...tensor.scalars import constant_like
from .activation import log_sigmoid, relu, softplus
from .distance import pairwise_distance

__all__ = ["soft_margin_loss", "multi_label_soft_margin_loss", "multi_margin_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]


def _check_reduction(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")


def _check_same(a, b, where, names=("input", "label")):
    if list(a.shape) != list(b.shape):
        raise ValueError(f"{where}: {names[0]} {list(a.shape)} and {names[1]} "
                         f"{list(b.shape)} must have the same shape")


@accepts(input=FLOATING)
def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input)) for labels 1 / -1, reduced."""
    _check_reduction(reduction, "soft_margin_loss")
    _check_same(input, label, "soft_margin_loss")
    label = cast(label, dtype_name_of(input))
    loss = softplus(scale(multiply(label, input), -1.0))
    return reduce_loss(loss, reduction, "soft_margin_loss")


@accepts(input=FLOATING)
def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(label log sigmoid(input) + (1 - label) log sigmoid(-input)) (times ``weight``),
    averaged over the classes (last axis), then reduced over the samples."""
    _check_reduction(reduction, "multi_label_soft_margin_loss")
    _check_same(input, label, "multi_label_soft_margin_loss")
    pos = log_sigmoid(input)
    neg = log_sigmoid(scale(input, -1.0))
    loss = scale(add(multiply(label, subtract(pos, neg)), neg), -1.0)
    if weight is not None:
        loss = multiply(loss, weight)
    return reduce_loss(
        _C_ops.reduce_mean(loss, dim=[-1], keep_dim=False, reduce_all=False),
        reduction,
        "multi_label_soft_margin_loss",
    )


@accepts(input=FLOATING)
def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """Multi-class hinge loss of scores [N, C] at labels [N]: the sum over classes i !=
    label of weight[label] * max(0, margin - input[label] + input[i])^p, divided by C."""
    _check_reduction(reduction, "multi_margin_loss")
    shape = [int(s) for s in input.shape]
    if len(shape) != 2 or int(label.shape[0]) != shape[0] and shape[0] >= 0:
        raise ValueError(f"multi_margin_loss: expected input [N, C] and label [N], got "
                         f"{shape} and {list(label.shape)}")
    classes = shape[1]
    label = _C_ops.reshape(label, shape=[-1])
    hot = _C_ops.one_hot(label, depth=classes, dtype=dtype_name_of(input))
    picked = _C_ops.reduce_sum(multiply(input, hot), dim=[1], keep_dim=True, reduce_all=False)
    hinge = relu(add(scale(picked, -1.0, float(margin)), input))
    if p != 1:
        hinge = _C_ops.pow(hinge, factor=float(p))
    # the label's own term is max(0, margin)^p: take it out of the mean
    loss = scale(
        _C_ops.reduce_mean(hinge, dim=[1], keep_dim=False, reduce_all=False),
        1.0,
        -(max(margin, 0.0) ** p) / classes,
    )
    if weight is not None:
        if int(weight.shape[0]) != classes:
            raise ValueError(f"multi_margin_loss: weight has {int(weight.shape[0])} entries "
                             f"for {classes} classes")
        loss = multiply(loss, _C_ops.gather(weight, label, axis=0))
    return reduce_loss(loss, reduction, "multi_margin_loss")


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where it is -1
    (cosine along the last axis of [N, D] or [D] inputs), reduced."""
    _check_reduction(reduction, "cosine_embedding_loss")
    if len(label.shape) != 1:
        raise ValueError(f"cosine_embedding_loss: label must be 1-D, got shape "
                         f"{list(label.shape)}")
    _check_same(input1, input2, "cosine_embedding_loss", ("input1", "input2"))
    if len(input1.shape) > 2:
        raise ValueError(f"cosine_embedding_loss: inputs must be 1-D or 2-D, got shape "
                         f"{list(input1.shape)}")
    dot = _C_ops.reduce_sum(multiply(input1, input2), dim=[-1], keep_dim=False, reduce_all=False)
    sq1 = scale(
        _C_ops.reduce_sum(_C_ops.square(input1), dim=[-1], keep_dim=False, reduce_all=False),
        1.0,
        1e-11,
    )
    sq2 = scale(
        _C_ops.reduce_sum(_C_ops.square(input2), dim=[-1], keep_dim=False, reduce_all=False),
        1.0,
        1e-11,
    )
    cos = _C_ops.elementwise_div(dot, _C_ops.sqrt(multiply(sq1, sq2)))
    label = cast(label, dtype_name_of(cos))
    zeros = constant_like(cos, 0.0)
    pos = _C_ops.where(_C_ops.equal(label, constant_like(label, 1.0)), scale(cos, -1.0, 1.0), zeros)
    neg = _C_ops.where(_C_ops.equal(label, constant_like(label, -1.0)),
                       relu(scale(cos, 1.0, -float(margin))), zeros)
    return reduce_loss(add(pos, neg), reduction, "cosine_embedding_loss")


def _triplet(input, positive, negative, distance, margin, swap, reduction, where):
    _check_reduction(reduction, where)
    if margin < 0:
        raise ValueError(f"{where}: margin must not be negative, got {margin}")
    if not list(input.shape) == list(positive.shape) == list(negative.shape):
        raise ValueError(f"{where}: input {list(input.shape)}, positive "
                         f"{list(positive.shape)} and negative {list(negative.shape)} must "
                         f"have the same shape")
    pos = distance(input, positive)
    neg = distance(input, negative)
    if swap:
        neg = _C_ops.elementwise_min(neg, distance(positive, negative))
    loss = relu(scale(subtract(pos, neg), 1.0, float(margin)))
    return reduce_loss(loss, reduction, where)


@accepts(input=FLOATING)
def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,
                        reduction="mean", name=None):
    """max(0, d(input, positive) - d(input, negative) + margin) with the pairwise p-norm
    distance d; ``swap`` uses min(d(a, n), d(p, n)) as the negative distance."""
    def distance(a, b):
        return pairwise_distance(a, b, p, epsilon)
    return _triplet(input, positive, negative, distance, margin, swap, reduction,
                    "triplet_margin_loss")


@accepts(input=FLOATING)
def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """triplet_margin_loss with any ``distance_function(a, b)`` (default: the pairwise
    2-norm distance)."""
    distance = distance_function or (lambda a, b: pairwise_distance(a, b, 2.0))
    return _triplet(input, positive, negative, distance, margin, swap, reduction,
                    "triplet_margin_with_distance_loss")
