"""Randomised activation and dropout layers (paddle.nn.RReLU, FeatureAlphaDropout)."""
from ..functional.stochastic import feature_alpha_dropout, rrelu
from .layers import Layer

__all__ = ["RReLU", "FeatureAlphaDropout"]


class RReLU(Layer):
    """Leaky ReLU whose negative slope is drawn from [lower, upper) per element in
    training and is (lower + upper) / 2 in eval mode."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper = lower, upper

    def forward(self, x):
        return rrelu(x, self._lower, self._upper, self.training)

    def extra_repr(self):
        return f"lower={self._lower}, upper={self._upper}"


class FeatureAlphaDropout(Layer):
    """Alpha dropout of whole channels in training; identity in eval mode."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = p

    def forward(self, x):
        return feature_alpha_dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"
