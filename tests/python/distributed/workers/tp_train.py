"""Trains tp_model.TinyLM (parallel) wrapped in TensorParallel in a hybrid job with
hybrid_configs argv[1] (JSON), each data-parallel rank on its part of the global batches
(the parameters TensorParallel takes from other ranks disturbed first), and writes its
losses and the whole (gathered) parameters to argv[2].RANK.npz."""
import json
import sys

import numpy as np

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet
from skiff.distributed.fleet.meta_parallel.random import model_parallel_random_seed
from skiff.distributed.fleet.meta_parallel.tensor_parallel import TensorParallel
from tp_model import TinyLM, batches, parallel_loss, train, SEED

strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = json.loads(sys.argv[1])
fleet.init(is_collective=True, strategy=strategy)
hcg = fleet.get_hybrid_communicate_group()
skiff.set_default_dtype("float64")
model_parallel_random_seed(SEED)
model = TinyLM(parallel=True)
split = {name: p.split_axis for name, p in model.named_parameters()
         if getattr(p, "is_distributed", False)}
# Disturbed where TensorParallel must mend them: the replicated parameters of every
# model-parallel rank but the first, all of every data-parallel rank but the first.
for name, p in model.named_parameters():
    if hcg.get_data_parallel_rank() > 0 or (name not in split and
                                            hcg.get_model_parallel_rank() > 0):
        p.set_value(p.numpy() + 1.0)
ids, labels = batches()
part = ids.shape[1] // hcg.get_data_parallel_world_size()
mine = slice(hcg.get_data_parallel_rank() * part, (hcg.get_data_parallel_rank() + 1) * part)
losses = train(TensorParallel(model, hcg, strategy), parallel_loss, ids[:, mine],
               labels[:, mine])

whole = {}
for name, p in model.named_parameters():
    if name in split:
        parts = []
        dist.all_gather(parts, p, group=hcg.get_model_parallel_group())
        whole[name] = np.concatenate([t.numpy() for t in parts], axis=split[name])
    else:
        whole[name] = p.numpy()
np.savez(f"{sys.argv[2]}.{dist.get_rank()}.npz", losses=np.array(losses),
         split=json.dumps(split), **whole)
