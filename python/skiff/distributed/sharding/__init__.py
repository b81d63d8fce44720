"""Sharded data parallelism (Paddle's paddle.distributed.sharding): ZeRO stages 1-3 in
eager mode. group_sharded_parallel sets a model and its optimizer up at level 'os'
(optimizer state sharded), 'os_g' (and gradients) or 'p_g_os' (and parameters);
save_group_sharded_model writes one ordinary checkpoint of them. ShardingOptimizer is
stage 1 for a hybrid-parallel sharding group."""
from .group_sharded import group_sharded_parallel, save_group_sharded_model
from .sharding_optimizer import ShardingOptimizer
from .stage2_model import GroupShardedStage2
from .stage3_model import GroupShardedStage3
from .stage3_optimizer import GroupShardedOptimizerStage3

__all__ = ["group_sharded_parallel", "save_group_sharded_model", "ShardingOptimizer",
           "GroupShardedStage2", "GroupShardedStage3", "GroupShardedOptimizerStage3"]
