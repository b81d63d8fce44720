"""Training helpers of Paddle's paddle.distributed.fleet.utils: recompute (activation
checkpointing; it lives beside the model-parallel random states it draws from)."""
from ..meta_parallel.recompute import recompute, recompute_sequential

__all__ = ["recompute", "recompute_sequential"]
