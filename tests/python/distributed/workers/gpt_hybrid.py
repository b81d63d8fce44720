"""W9's GPT (test-sized, float64) trained for a few AdamW steps in the hybrid layout
argv[1] (hybrid_configs as JSON; "{}" in one process), from a checkpoint with --load, saved
with --save: each data-parallel rank takes its
part of the same global batches. Writes the losses (the global batch's mean) and the whole
parameters, gathered from their slices, to argv[2] (npz, from the first rank of the data-
parallel group, which holds them all with pipe degree 1)."""
import argparse
import json
import pathlib
import sys

import numpy as np

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "examples" / "gpt"))
from gpt import GPT, GPTConfig  # noqa: E402
from gpt_pipe import gpt_descs, gpt_loss, gpt_name  # noqa: E402
from skiff.distributed.fleet.meta_parallel import PipelineLayer  # noqa: E402

CONFIG = GPTConfig(vocab_size=64, hidden=32, layers=2, heads=4, seq_len=16)
GLOBAL_BATCH, STEPS = 8, 5


def batches():
    """Arithmetic sequences of tokens (a random start, a stride of 1 to 3): learnable."""
    rng = np.random.default_rng(3)
    out = []
    for _ in range(STEPS):
        start = rng.integers(0, CONFIG.vocab_size, (GLOBAL_BATCH, 1))
        stride = rng.integers(1, 4, (GLOBAL_BATCH, 1))
        out.append((start + stride * np.arange(CONFIG.seq_len + 1)) % CONFIG.vocab_size)
    return out


def whole(param, hcg):
    """The parameter's full value: its slices gathered over the model-parallel group."""
    if not getattr(param, "is_distributed", False):
        return param.numpy()
    parts = []
    dist.all_gather(parts, param, group=hcg.get_model_parallel_group())
    return np.concatenate([p.numpy() for p in parts], axis=param.split_axis)


def main(configs, out, save_to=None, load_from=None, steps=STEPS, recompute_interval=0,
         clip=None, dtype="float64", to_static=False):
    skiff.set_default_dtype(dtype)
    strategy = fleet.DistributedStrategy()
    stage = configs.pop("stage", 1)
    strategy.hybrid_configs = configs
    strategy.sharding_configs = {"stage": stage}
    dp = configs.get("dp_degree", 1)
    strategy.pipeline_configs = {"accumulate_steps": 2,
                                 "micro_batch_size": GLOBAL_BATCH // dp // 2}
    fleet.init(is_collective=True, strategy=strategy)
    hcg = fleet.get_hybrid_communicate_group()
    pipelined = hcg.get_pipe_parallel_world_size() > 1
    skiff.seed(7)
    before = skiff.device.memory_allocated()
    if pipelined:
        net = PipelineLayer(gpt_descs(CONFIG), topology=hcg.topology(), loss_fn=gpt_loss,
                            seg_method="layer:Block", recompute_interval=recompute_interval)
    else:
        net = GPT(CONFIG)
    if to_static:
        net = skiff.jit.to_static(net)
    if load_from:
        dist.load_state_dict(net.state_dict(), load_from)
    model = fleet.distributed_model(net)
    optimizer = fleet.distributed_optimizer(skiff.optimizer.AdamW(
        learning_rate=1e-2, parameters=model.parameters(), weight_decay=0.01,
        grad_clip=skiff.nn.ClipGradByGlobalNorm(clip) if clip else None))
    # The data-parallel ranks of a sharded layout: the data and sharding axes together.
    sharding = hcg.get_sharding_parallel_world_size()
    dp_rank = hcg.get_data_parallel_rank() * sharding + hcg.get_sharding_parallel_rank()
    share = GLOBAL_BATCH // (hcg.get_data_parallel_world_size() * sharding)
    losses = []
    state_bytes = None
    for tokens in batches()[:steps]:
        mine = skiff.to_tensor(tokens[dp_rank * share:(dp_rank + 1) * share])
        if pipelined:
            loss = skiff.to_tensor(model.train_batch([mine[:, :-1], mine[:, 1:]], optimizer))
        else:
            loss = net.loss(model(mine[:, :-1]), mine[:, 1:])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        if state_bytes is None:  # parameters and optimizer state, no gradient
            optimizer.clear_grad(set_to_zero=False)
            state_bytes = skiff.device.memory_allocated() - before
        mean = loss.detach().clone()
        dist.all_reduce(mean, dist.ReduceOp.AVG, group=hcg.get_data_parallel_group())
        dist.all_reduce(mean, dist.ReduceOp.AVG, group=hcg.get_sharding_parallel_group())
        losses.append(float(mean))
    if save_to:
        dist.save_state_dict(net.state_dict(), save_to)
    with open(f"{out}.{dist.get_rank()}.memory.json", "w") as f:
        json.dump({"state_bytes": state_bytes,
                   "elements": sum(p.size for p in net.parameters())}, f)
    params = {gpt_name(name, CONFIG) if pipelined else name: whole(p, hcg)
              for name, p in net.named_parameters()}
    if dp_rank == 0 and hcg.get_model_parallel_rank() == 0:
        np.savez(f"{out}.{hcg.get_stage_id()}.npz", losses=np.array(losses), **params)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("configs", type=json.loads)
    parser.add_argument("out")
    parser.add_argument("--save", help="a folder to write the trained model into, as "
                        "skiff.distributed.save_state_dict does")
    parser.add_argument("--load", help="a folder to start the model from")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--recompute-interval", type=int, default=0,
                        help="pipeline stages recompute every so many layers")
    parser.add_argument("--clip", type=float, help="clip the gradients' global norm to this")
    parser.add_argument("--dtype", default="float64")
    parser.add_argument("--to-static", action="store_true",
                        help="run the model's forward as a program (skiff.jit.to_static)")
    parser.add_argument("--layers", type=int, default=CONFIG.layers)
    parser.add_argument("--heads", type=int, default=CONFIG.heads)
    parser.add_argument("--hidden", type=int, default=CONFIG.hidden)
    args = parser.parse_args()
    CONFIG.layers, CONFIG.heads, CONFIG.hidden = args.layers, args.heads, args.hidden
    main(args.configs, args.out, args.save, args.load, args.steps, args.recompute_interval,
         args.clip, args.dtype, args.to_static)
