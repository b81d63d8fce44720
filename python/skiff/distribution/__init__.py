"""Probability distributions (Paddle's paddle.distribution): Normal, Uniform, Categorical,
Bernoulli, Beta, Exponential, Laplace, Multinomial, with kl_divergence between registered pairs."""
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .normal import Normal
from .uniform import Uniform
from ..framework.tensor_params import check_classes as _check_classes

__all__ = ["Distribution", "Normal", "Uniform", "Categorical", "Bernoulli", "Beta",
           "Exponential", "Laplace", "Multinomial", "kl_divergence", "register_kl"]

_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
