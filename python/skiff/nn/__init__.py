"""skiff.nn (Paddle's paddle.nn): Layer and the layers, initializers, and
skiff.nn.functional. Every computation runs skiff ops, so layers work in eager mode,
in static programs and under to_static alike."""
from ..framework.param import ParamAttr, Parameter  # noqa: F401
from . import clip, decode, functional, initializer, utils  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401  (as Paddle's paddle.nn)
from .layer import *  # noqa: F401,F403
from .layer.layers import Layer  # noqa: F401


