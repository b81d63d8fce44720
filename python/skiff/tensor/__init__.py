"""Tensor functions (Paddle's paddle.tensor): creation, math, manipulation, and the
methods and operators of skiff.Tensor."""
from .creation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from . import methods  # noqa: F401  (installs Tensor's methods and operators)
