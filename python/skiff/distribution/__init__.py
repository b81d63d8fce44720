"""Probability distributions (Paddle's paddle.distribution): Normal, Uniform, Categorical,
Bernoulli, Beta, Exponential, Laplace, Multinomial, Gamma, Chi2, Cauchy, Geometric, Poisson,
Binomial, with kl_divergence between registered pairs."""
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multinomial import Multinomial
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform
from ..framework.tensor_params import check_classes as _check_classes

__all__ = ["Distribution", "Normal", "Uniform", "Categorical", "Bernoulli", "Beta",
           "Exponential", "Laplace", "Multinomial", "Gamma", "Chi2", "Cauchy", "Geometric",
           "Poisson", "Binomial", "kl_divergence", "register_kl"]

_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
