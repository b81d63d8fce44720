"""Sequence loss layers (paddle.nn.CTCLoss, RNNTLoss) over nn.functional's ctc_loss and
rnnt_loss."""
from ..functional.loss_sequence import ctc_loss, rnnt_loss
from .layers import Layer

__all__ = ["CTCLoss", "RNNTLoss"]


def _check_reduction(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")


class CTCLoss(Layer):
    """CTC loss of unscaled scores [T, B, C] against padded labels (see ctc_loss)."""

    def __init__(self, blank=0, reduction="mean"):
        super().__init__()
        _check_reduction(reduction, "CTCLoss")
        self.blank, self.reduction = blank, reduction

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                        self.reduction, norm_by_times)


class RNNTLoss(Layer):
    """RNN-T loss of log-probabilities [B, T, U + 1, C] against padded labels (see
    rnnt_loss)."""

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        _check_reduction(reduction, "RNNTLoss")
        self.blank, self.fastemit_lambda, self.reduction = blank, fastemit_lambda, reduction

    def forward(self, input, label, input_lengths, label_lengths):
        return rnnt_loss(input, label, input_lengths, label_lengths, self.blank,
                         self.fastemit_lambda, self.reduction)
