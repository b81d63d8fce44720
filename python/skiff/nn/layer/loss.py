"""Loss layers (paddle.nn.CrossEntropyLoss, MSELoss, L1Loss, BCELoss,
BCEWithLogitsLoss, NLLLoss, SmoothL1Loss): ``loss(input, label)``."""
from .. import functional as F
from .layers import Layer

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "SmoothL1Loss", "HuberLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss"]


def _check(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")
    return reduction


class CrossEntropyLoss(Layer):
    """Softmax cross-entropy against hard or soft labels (see F.cross_entropy)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction = _check(reduction, "CrossEntropyLoss")
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, self.weight, self.ignore_index, self.reduction,
                               self.soft_label, self.axis, self.use_softmax,
                               self.label_smoothing)


class MSELoss(Layer):
    """Mean (or sum, or none) of (input - label)^2."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check(reduction, "MSELoss")

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(Layer):
    """Mean (or sum, or none) of |input - label|."""

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self.reduction = _check(reduction, "L1Loss")

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(Layer):
    """Huber loss with threshold ``delta`` (is_huber=False: the smooth L1 loss, divided
    by delta); nn.HuberLoss is this class, as in Paddle."""

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction, self.delta = _check(reduction, "SmoothL1Loss"), delta
        self.is_huber = is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


HuberLoss = SmoothL1Loss


class BCELoss(Layer):
    """Binary cross-entropy of probabilities, optionally weighted per element."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        self.weight, self.reduction = weight, _check(reduction, "BCELoss")

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    """Binary cross-entropy of sigmoid(logit), stable; ``pos_weight`` per class."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        self.weight, self.pos_weight = weight, pos_weight
        self.reduction = _check(reduction, "BCEWithLogitsLoss")

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class NLLLoss(Layer):
    """Negative log-likelihood of log-probabilities [N, C, ...] at integer labels."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        self._weight, self._ignore_index = weight, ignore_index
        self._reduction = _check(reduction, "NLLLoss")

    def forward(self, input, label):
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class KLDivLoss(Layer):
    """KL divergence from log-probabilities to a target distribution."""

    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        if reduction not in ("none", "sum", "mean", "batchmean"):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'sum', 'mean' or "
                             f"'batchmean', got {reduction!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(Layer):
    """max(0, -label * (input - other) + margin): forward(input, other, label)."""

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction = margin, _check(reduction, "MarginRankingLoss")

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(Layer):
    """input for label 1, max(0, margin - input) for label -1."""

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction = margin, _check(reduction, "HingeEmbeddingLoss")

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


# paddle.nn.layer.loss holds every loss layer: those defined beside this module too.
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss  # noqa: E402,F401
from .hsigmoid import HSigmoidLoss  # noqa: E402,F401
from .loss_likelihood import GaussianNLLLoss, PoissonNLLLoss  # noqa: E402,F401
from .loss_margin import *  # noqa: E402,F401,F403
from .loss_multilabel import *  # noqa: E402,F401,F403
from .loss_sequence import CTCLoss, RNNTLoss  # noqa: E402,F401
