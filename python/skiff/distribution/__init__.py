"""Probability distributions (Paddle's paddle.distribution): Normal, Uniform, Categorical,
Bernoulli, Beta, Exponential, Laplace, Multinomial, Gamma, Chi2, Cauchy, Geometric, Poisson,
Binomial, LogNormal, MultivariateNormal, Dirichlet, StudentT, ContinuousBernoulli,
LKJCholesky, Independent, TransformedDistribution and the transforms, with
kl_divergence between registered pairs."""
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .lognormal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .student_t import StudentT
from .transform import AbsTransform, AffineTransform, ChainTransform, ExpTransform, \
    PowerTransform, SigmoidTransform, TanhTransform, Transform
from .transform_structured import IndependentTransform, ReshapeTransform, SoftmaxTransform, \
    StackTransform, StickBreakingTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from ..framework.tensor_params import check_classes as _check_classes

__all__ = ["Distribution", "Normal", "Uniform", "Categorical", "Bernoulli", "Beta",
           "Exponential", "Laplace", "Multinomial", "Gamma", "Chi2", "Cauchy", "Geometric",
           "Poisson", "Binomial", "LogNormal", "MultivariateNormal", "Dirichlet",
           "StudentT", "ContinuousBernoulli", "LKJCholesky", "Independent",
           "TransformedDistribution",
           "Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "kl_divergence", "register_kl"]

_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
