"""Likelihood loss layers (paddle.nn.PoissonNLLLoss, GaussianNLLLoss)."""
from .. import functional as F
from .layers import Layer

__all__ = ["PoissonNLLLoss", "GaussianNLLLoss"]


class PoissonNLLLoss(Layer):
    """Poisson negative log-likelihood: forward(input, label)."""

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__()
        if epsilon <= 0:
            raise ValueError(f"PoissonNLLLoss: epsilon must be positive, got {epsilon}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"PoissonNLLLoss: reduction must be 'none', 'sum' or 'mean', got "
                             f"{reduction!r}")
        self.log_input, self.full, self.epsilon = log_input, full, epsilon
        self.reduction = reduction

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class GaussianNLLLoss(Layer):
    """Gaussian negative log-likelihood: forward(input, label, variance)."""

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__()
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"GaussianNLLLoss: reduction must be 'none', 'sum' or 'mean', got "
                             f"{reduction!r}")
        self.full, self.epsilon, self.reduction = full, epsilon, reduction

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)
