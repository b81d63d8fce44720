"""skiff.nn (Paddle's paddle.nn): Layer and the layers, initializers, and
skiff.nn.functional. Every computation runs skiff ops, so layers work in eager mode,
in static programs and under to_static alike."""
from ..framework.param import ParamAttr, Parameter  # noqa: F401
from . import functional, initializer, utils  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer.layers import Layer  # noqa: F401


_FROM_OPTIMIZER = ("ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue")


def __getattr__(name):
    """Paddle keeps the gradient clipping classes in paddle.nn too."""
    if name in _FROM_OPTIMIZER:
        from ..optimizer import clip
        return getattr(clip, name)
    raise AttributeError(f"module 'skiff.nn' has no attribute '{name}'")
