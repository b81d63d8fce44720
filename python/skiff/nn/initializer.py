"""Parameter initializers (Paddle's paddle.nn.initializer). They live in the framework
layer, which creates parameters with them; this is their public home."""
from ..framework.initializer import *  # noqa: F401,F403
from ..framework.initializer import __all__, compute_fans  # noqa: F401
