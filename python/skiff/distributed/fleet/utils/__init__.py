"""Training helpers of Paddle's paddle.distributed.fleet.utils: recompute (activation
checkpointing)."""
from .recompute import recompute, recompute_sequential

__all__ = ["recompute", "recompute_sequential"]
