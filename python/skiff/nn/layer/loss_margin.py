"""Margin and embedding loss layers (paddle.nn.SoftMarginLoss, MultiLabelSoftMarginLoss,
MultiMarginLoss, CosineEmbeddingLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)."""
from .. import functional as F
from .layers import Layer

__all__ = ["SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "CosineEmbeddingLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


def _check(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")
    return reduction


class SoftMarginLoss(Layer):
    """log(1 + exp(-label * input)): forward(input, label)."""

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self.reduction = _check(reduction, "SoftMarginLoss")

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class MultiLabelSoftMarginLoss(Layer):
    """Per-class logistic loss averaged over the classes: forward(input, label)."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        self.weight, self.reduction = weight, _check(reduction, "MultiLabelSoftMarginLoss")

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class MultiMarginLoss(Layer):
    """Multi-class hinge loss: forward(input [N, C], label [N])."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        self.p, self.margin, self.weight = p, margin, weight
        self.reduction = _check(reduction, "MultiMarginLoss")

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                   self.reduction)


class CosineEmbeddingLoss(Layer):
    """1 - cos for label 1, max(0, cos - margin) for -1: forward(input1, input2, label)."""

    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction = margin, _check(reduction, "CosineEmbeddingLoss")

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class TripletMarginLoss(Layer):
    """max(0, d(a, p) - d(a, n) + margin) with the p-norm distance:
    forward(input, positive, negative)."""

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap
        self.reduction = _check(reduction, "TripletMarginLoss")

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(Layer):
    """TripletMarginLoss with any distance_function(a, b)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__()
        self.distance_function, self.margin, self.swap = distance_function, margin, swap
        self.reduction = _check(reduction, "TripletMarginWithDistanceLoss")

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)
