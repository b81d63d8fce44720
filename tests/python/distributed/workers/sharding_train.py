"""Trains the shared MLP sharded: argv = level, sharding degree, data-parallel degree,
segment_size, output prefix. Writes this rank's losses and the whole final parameters to
PREFIX.RANK.npz and a checkpoint (save_group_sharded_model) to PREFIX.ckpt/."""
import sys

import numpy as np

import skiff.distributed as dist
from skiff.distributed import fleet
from skiff.distributed.sharding import group_sharded_parallel, save_group_sharded_model
from sharding_model import STEPS, build, train_step

level, sharding, dp, segment, prefix = sys.argv[1:6]
sharding, dp = int(sharding), int(dp)
if dp > 1:
    strategy = fleet.DistributedStrategy()
    strategy.hybrid_configs = {"sharding_degree": sharding, "dp_degree": dp}
    fleet.init(is_collective=True, strategy=strategy)
    hcg = fleet.get_hybrid_communicate_group()
    group, dp_group = hcg.get_sharding_parallel_group(), hcg.get_data_parallel_group()
else:
    group, dp_group = dist.init_parallel_env(), None
rank, world = dist.get_rank(), dist.get_world_size()

model, opt = build()
model, opt, _ = group_sharded_parallel(model, opt, level, group=group, dp_group=dp_group,
                                       segment_size=int(segment))
losses = [train_step(model, opt, step, rank, world) for step in range(STEPS)]
params = model.full_state_dict()
np.savez(f"{prefix}.{rank}.npz", losses=np.array(losses),
         **{f"param/{k}": v for k, v in params.items()})
save_group_sharded_model(model, f"{prefix}.ckpt", opt)
