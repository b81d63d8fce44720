"""Trains pp_model's descriptions pipeline-parallel, in micro-batches of 2. argv[1]: JSON
{"hybrid": hybrid_configs, "schedule": "1F1B" or "FThenB", "accumulate": accumulate_steps,
"scaler": whether to train through a GradScaler, "recompute_interval"}; argv[2]: the output prefix. Writes
PREFIX.RANK.json with the losses, this stage's parameters (by the Reference's names), the
timings of the last batch, eval_batch's loss and outputs on the first batch, and the error a
batch of the wrong size raises."""
import json
import sys

import numpy as np

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet
from skiff.distributed.fleet.meta_parallel.pipeline_layer import PipelineLayer
from skiff.distributed.fleet.meta_parallel.pipeline_parallel import PipelineParallel

import pp_model

options, prefix = json.loads(sys.argv[1]), sys.argv[2]
accumulate, micro = options["accumulate"], 2

strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = options["hybrid"]
strategy.pipeline_configs = {"accumulate_steps": accumulate, "micro_batch_size": micro,
                             "schedule_mode": options["schedule"]}
fleet.init(is_collective=True, strategy=strategy)
hcg = fleet.get_hybrid_communicate_group()
skiff.set_default_dtype("float64")
skiff.seed(pp_model.SEED)
layer = PipelineLayer(pp_model.descs(), topology=hcg.topology(), loss_fn=pp_model.loss_fn,
                      seg_method="layer:Block",
                      recompute_interval=options["recompute_interval"])
model = PipelineParallel(layer, hcg, strategy)
opt, scheduler = pp_model.optimizer(model.parameters())
# A power of two: scaling and unscaling float64 gradients by it is exact.
scaler = skiff.amp.GradScaler(init_loss_scaling=2.0 ** 10) if options["scaler"] else None

dp, dp_rank = hcg.get_data_parallel_world_size(), hcg.get_data_parallel_rank()
per_rank = accumulate * micro
tokens, labels = pp_model.batches(dp * per_rank)
rows = slice(dp_rank * per_rank, (dp_rank + 1) * per_rank)


def batch(step, samples=per_rank):
    return [skiff.to_tensor(tokens[step, rows][:samples]),
            skiff.to_tensor(labels[step, rows][:samples])]


losses = [float(model.train_batch(batch(step), opt, scheduler, scaler))
          for step in range(pp_model.STEPS)]
timings = model.last_timings
eval_loss = float(model.eval_batch(batch(0)))
outputs = model.eval_batch(batch(0), compute_loss=False)
try:
    model.train_batch(batch(0, per_rank - 1), opt, scheduler, scaler)
    error = None
except ValueError as e:
    error = str(e)

out = {"stage": hcg.get_stage_id(), "dp_rank": dp_rank, "losses": losses, "error": error,
       "timings": timings, "eval_loss": eval_loss,
       "outputs": None if outputs is None else np.concatenate(
           [o.numpy() for o in outputs]).tolist(),
       "params": {pp_model.reference_name(n): p.numpy().tolist()
                  for n, p in layer.named_parameters()}}
with open(f"{prefix}.{dist.get_rank()}.json", "w") as f:
    json.dump(out, f)
