"""W9 (examples/gpt: 4 layers, hidden 256, 8 heads, vocabulary 8192, sequence 128, global
batch 8, AdamW, float32) trained in each hybrid layout on 1, 2 and 4 ranks of this
machine, skiff beside PyTorch (bench/w9_torch.py: DDP, FSDP, tensor parallel on Gloo) in
one run: tokens/s per layout, the ratio to PyTorch's nearest layout, each rank's bytes of
parameters + optimizer state (measured), and the pipeline's bubble against 1F1B's
(p - 1) / (m + p - 1).

    PYTHONPATH=build/python .venv/bin/python bench/w9_hybrid.py [--steps 6] [--rounds 2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "gpt"))

# layout: (skiff hybrid_configs, ranks, PyTorch's layout to compare with)
LAYOUTS = {
    "single": ({}, 1, "single"),
    "dp2": ({"dp_degree": 2}, 2, "ddp"),
    "sharding2": ({"sharding_degree": 2}, 2, "fsdp"),
    "sharding2_s2": ({"sharding_degree": 2, "stage": 2}, 2, "fsdp"),
    "mp2": ({"mp_degree": 2}, 2, "tp"),
    "pp2": ({"pp_degree": 2}, 2, None),
    "dp4": ({"dp_degree": 4}, 4, "ddp"),
    "dp2xmp2": ({"dp_degree": 2, "mp_degree": 2}, 4, None),
    "dp2xpp2": ({"dp_degree": 2, "pp_degree": 2}, 4, None),
    "mp2xpp2": ({"mp_degree": 2, "pp_degree": 2}, 4, None),
}
GLOBAL_BATCH, MICRO_BATCHES = 8, 4


def worker(layout, steps, warmup, out):
    """One rank of skiff's job: times the steps, rank 0 writes the figures."""
    import numpy as np

    import skiff
    import skiff.distributed as dist
    from skiff.distributed import fleet
    from skiff.distributed.fleet.meta_parallel import PipelineLayer
    from gpt import GPT, GPTConfig
    from gpt_pipe import gpt_descs, gpt_loss

    configs, _, _ = LAYOUTS[layout]
    configs = dict(configs)
    strategy = fleet.DistributedStrategy()
    strategy.sharding_configs = {"stage": configs.pop("stage", 1)}
    strategy.hybrid_configs = configs
    dp = configs.get("dp_degree", 1) * configs.get("sharding_degree", 1)
    share = GLOBAL_BATCH // dp
    if configs.get("pp_degree", 1) > 1:
        strategy.pipeline_configs = {"accumulate_steps": MICRO_BATCHES,
                                     "micro_batch_size": share // MICRO_BATCHES}
    fleet.init(is_collective=True, strategy=strategy)
    hcg = fleet.get_hybrid_communicate_group()
    config = GPTConfig()
    pipelined = hcg.get_pipe_parallel_world_size() > 1
    skiff.seed(0)
    before = skiff.device.memory_allocated()
    if pipelined:
        net = PipelineLayer(gpt_descs(config), topology=hcg.topology(), loss_fn=gpt_loss,
                            seg_method="layer:Block")
    else:
        net = GPT(config)
    model = fleet.distributed_model(net)
    optimizer = fleet.distributed_optimizer(skiff.optimizer.AdamW(
        learning_rate=1e-4, parameters=model.parameters(), weight_decay=0.01))
    data_rank = (hcg.get_data_parallel_rank() * hcg.get_sharding_parallel_world_size()
                 + hcg.get_sharding_parallel_rank())
    rng = np.random.default_rng(data_rank)
    tokens = skiff.to_tensor(rng.integers(0, config.vocab_size, (share, config.seq_len + 1)))
    times, bubbles, state_bytes = [], [], 0
    for step in range(warmup + steps):
        start = time.perf_counter()
        if pipelined:
            model.train_batch([tokens[:, :-1], tokens[:, 1:]], optimizer)
            bubbles.append(model.last_timings["bubble_fraction"])
        else:
            loss = net.loss(model(tokens[:, :-1]), tokens[:, 1:])
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        dist.barrier()
        times.append(time.perf_counter() - start)
        if step == 0:  # parameters and optimizer state, gradients cleared
            state_bytes = skiff.device.memory_allocated() - before
    step_s = sorted(times[warmup:])[len(times[warmup:]) // 2]
    figures = {"step_s": step_s, "state_bytes": state_bytes, "stage": hcg.get_stage_id(),
               "bubble": float(np.median(bubbles[warmup:])) if bubbles else None}
    every = [figures]
    if dist.get_world_size() > 1:
        every = []
        dist.all_gather_object(every, figures)
    if dist.get_rank() == 0:
        step_s = max(f["step_s"] for f in every)
        bubble = {}  # per stage: the largest idle fraction among its ranks
        for f in every:
            if f["bubble"] is not None:
                bubble[f["stage"]] = max(bubble.get(f["stage"], 0.0), f["bubble"])
        with open(out, "w") as f:
            json.dump({"tokens_per_s": GLOBAL_BATCH * config.seq_len / step_s,
                       "step_ms": step_s * 1e3,
                       "state_mb": [f["state_bytes"] / 2**20 for f in every],
                       "bubble": [bubble[k] for k in sorted(bubble)] or None}, f)


def run_skiff(layout, steps, warmup, folder):
    _, ranks, _ = LAYOUTS[layout]
    out = os.path.join(folder, f"skiff_{layout}.json")
    command = [sys.executable, os.path.abspath(__file__), "--worker", layout, "--steps",
               str(steps), "--warmup", str(warmup), "--out", out]
    if ranks > 1:
        command = [sys.executable, "-m", "skiff.distributed.launch", "--nproc_per_node",
                   str(ranks), "--log_dir", os.path.join(folder, f"log_{layout}")] + command[1:]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise SystemExit(f"skiff's {layout} run failed:\n{done.stdout[-3000:]}")
    with open(out) as f:
        return json.load(f)


def run_torch(layout, ranks, steps, warmup, folder):
    out = os.path.join(folder, f"torch_{layout}_{ranks}.json")
    script = os.path.join(HERE, "w9_torch.py")
    command = [sys.executable, script, layout, str(steps), str(warmup), out]
    if ranks > 1:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                   "--nproc_per_node", str(ranks), script, layout, str(steps), str(warmup), out]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        return {"error": done.stdout.strip().splitlines()[-1] if done.stdout else "failed"}
    with open(out) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.steps, args.warmup, args.out)
        return
    layouts = args.layouts.split(",")
    rows = {layout: [] for layout in layouts}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for layout in layouts:
                _, ranks, peer = LAYOUTS[layout]
                ours = run_skiff(layout, args.steps, args.warmup, folder)
                theirs = run_torch(peer, ranks, args.steps, args.warmup, folder) if peer else None
                rows[layout].append((ours, theirs))
    print(f"W9 tokens/s, {args.rounds} rounds (median), {os.cpu_count()} cores, "
          f"global batch {GLOBAL_BATCH} x 128 tokens, {MICRO_BATCHES} micro-batches per "
          f"pipeline")
    print(f"{'layout':<10} {'ranks':>5} {'skiff':>9} {'PyTorch':>18} {'ratio':>6} "
          f"{'state MB/rank':>14} {'idle by stage (1F1B)':>22}")
    for layout in layouts:
        _, ranks, peer = LAYOUTS[layout]
        ours = sorted(r[0]["tokens_per_s"] for r in rows[layout])[len(rows[layout]) // 2]
        state = rows[layout][0][0]["state_mb"]
        bubble = rows[layout][0][0]["bubble"]
        theirs, ratio = "", ""
        if peer:
            got = [r[1] for r in rows[layout]]
            if all("tokens_per_s" in g for g in got):
                value = sorted(g["tokens_per_s"] for g in got)[len(got) // 2]
                ratios = sorted(r[0]["tokens_per_s"] / r[1]["tokens_per_s"]
                                for r in rows[layout])
                theirs = f"{peer} {value:.0f}"
                ratio = f"{ratios[len(ratios) // 2]:.2f}"
            else:
                theirs = f"{peer}: {got[0]['error'][:40]}"
        pipe = LAYOUTS[layout][0].get("pp_degree", 1)
        formula = (pipe - 1) / (MICRO_BATCHES + pipe - 1)
        bubble_text = (" / ".join(f"{b:.2f}" for b in bubble) + f" ({formula:.2f})"
                       if bubble else "")
        print(f"{layout:<10} {ranks:>5} {ours:>9.0f} {theirs:>18} {ratio:>6} "
              f"{max(state):>14.1f} {bubble_text:>22}")


if __name__ == "__main__":
    main()
