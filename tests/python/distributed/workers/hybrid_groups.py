"""Joins a hybrid-parallel job with hybrid_configs from argv[1] (JSON) and writes this
rank's groups, and the sum of the global ranks over each of them, to argv[2].RANK.json."""
import json
import sys

import numpy as np

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet

strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = json.loads(sys.argv[1])
fleet.init(is_collective=True, strategy=strategy)
hcg = fleet.get_hybrid_communicate_group()
out = {"mode": hcg.get_parallel_mode(), "stage": hcg.get_stage_id()}
for axis, group in (("data", hcg.get_data_parallel_group()),
                    ("pipe", hcg.get_pipe_parallel_group()),
                    ("sharding", hcg.get_sharding_parallel_group()),
                    ("model", hcg.get_model_parallel_group()),
                    ("check", hcg.get_check_parallel_group())):
    rank = skiff.to_tensor(np.array([dist.get_rank()], np.int64))
    dist.all_reduce(rank, group=group)
    out[axis] = {"ranks": group.ranks, "sum": int(rank.numpy()[0])}
with open(f"{sys.argv[2]}.{dist.get_rank()}.json", "w") as f:
    json.dump(out, f)
