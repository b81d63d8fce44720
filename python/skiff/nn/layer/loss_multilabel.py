"""paddle.nn.MultiLabelMarginLoss."""
from ..functional.loss_multilabel import multi_label_margin_loss
from .layers import Layer

__all__ = ["MultiLabelMarginLoss"]


class MultiLabelMarginLoss(Layer):
    """Hinge loss between each sample's target classes (label rows ended by -1) and its
    other classes; forward(input, label)."""

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"MultiLabelMarginLoss: reduction must be 'none', 'sum' or "
                             f"'mean', got {reduction!r}")
        self.reduction = reduction

    def forward(self, input, label):
        return multi_label_margin_loss(input, label, self.reduction)
