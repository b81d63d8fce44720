"""Trains pp_model's descriptions pipeline-parallel, in micro-batches of 2. argv:
hybrid_configs (JSON), the schedule ("1F1B" or "FThenB"), accumulate_steps, the output
prefix; writes PREFIX.RANK.json with the losses,
this stage's parameters (by the Reference's names), the timings of the last batch, and the
error a batch of the wrong size raises."""
import json
import sys

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet
from skiff.distributed.fleet.meta_parallel.pipeline_layer import PipelineLayer
from skiff.distributed.fleet.meta_parallel.pipeline_parallel import PipelineParallel

import pp_model

MICRO = 2
configs, schedule = json.loads(sys.argv[1]), sys.argv[2]
ACCUMULATE, prefix = int(sys.argv[3]), sys.argv[4]

strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = configs
strategy.pipeline_configs = {"accumulate_steps": ACCUMULATE, "micro_batch_size": MICRO,
                             "schedule_mode": schedule}
fleet.init(is_collective=True, strategy=strategy)
hcg = fleet.get_hybrid_communicate_group()
skiff.set_default_dtype("float64")
skiff.seed(pp_model.SEED)
layer = PipelineLayer(pp_model.descs(), topology=hcg.topology(), loss_fn=pp_model.loss_fn,
                      seg_method="layer:Block")
model = PipelineParallel(layer, hcg, strategy)
opt, scheduler = pp_model.optimizer(model.parameters())

dp, dp_rank = hcg.get_data_parallel_world_size(), hcg.get_data_parallel_rank()
per_rank = ACCUMULATE * MICRO
tokens, labels = pp_model.batches(dp * per_rank)
rows = slice(dp_rank * per_rank, (dp_rank + 1) * per_rank)
losses = []
for step in range(pp_model.STEPS):
    loss = model.train_batch([skiff.to_tensor(tokens[step, rows]),
                              skiff.to_tensor(labels[step, rows])], opt, scheduler)
    losses.append(float(loss))

try:
    model.train_batch([skiff.to_tensor(tokens[0, :per_rank - 1]),
                       skiff.to_tensor(labels[0, :per_rank - 1])], opt, scheduler)
    error = None
except ValueError as e:
    error = str(e)

out = {"stage": hcg.get_stage_id(), "dp_rank": dp_rank, "losses": losses, "error": error,
       "timings": model.last_timings,
       "params": {pp_model.reference_name(n): p.numpy().tolist()
                  for n, p in layer.named_parameters()}}
with open(f"{prefix}.{dist.get_rank()}.json", "w") as f:
    json.dump(out, f)
