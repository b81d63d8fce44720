#!/usr/bin/env python3
"""W5's training step on the parameter server beside the same step in one process.

W5 (shared WORKLOADS): ids [512, 26] looked up in a 1M x 16 embedding, the 26 rows
concatenated to 416 features, fc(416->256)-relu-fc(256->1), BCE with logits, SGD lr 0.01;
the batches are bench/peers.py's ctr_batch. Both sides are skiff eager Python:

  single   nn.Embedding(1M, 16, sparse=True) + the MLP + optimizer.SGD in this process.
  ps       the same model with the table as ps.DistributedEmbedding (rows created on
           first touch) and the MLP's parameters as dense tables, on 2 server processes
           (python -m skiff.distributed.ps.server, 127.0.0.1); one trainer (this process)
           in sync mode: each step pulls the batch's distinct rows (the ps_pull_sparse op,
           inside the forward), runs forward and
           backward, pushes the row and dense gradients, meets the step's barrier (the
           servers apply SGD) and pulls the dense values back.

Rounds alternate between the two; the figure is the median ms per step, the ratio
ps / single is the overhead, and the PS step is profiled by phase (where the time goes).

    .venv/bin/python bench/ps_w5_step.py [--steps 40] [--rounds 5] [--warmup 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import CTR_BATCH, CTR_DIM, CTR_FIELDS, CTR_ROWS, ctr_batch  # noqa: E402

import skiff  # noqa: E402
import skiff.nn.functional as F  # noqa: E402
from skiff.distributed import ps  # noqa: E402

LR = 0.01


class Ctr(skiff.nn.Layer):
    def __init__(self, table):
        super().__init__()
        self.table = table
        self.fc0 = skiff.nn.Linear(CTR_FIELDS * CTR_DIM, 256)
        self.fc1 = skiff.nn.Linear(256, 1)

    def forward(self, ids):
        h = skiff.reshape(self.table(ids), [ids.shape[0], CTR_FIELDS * CTR_DIM])
        return self.fc1(F.relu(self.fc0(h)))


class Phases:
    """Seconds spent in named phases, from wrapped methods."""

    def __init__(self):
        self.seconds = {}

    def wrap(self, obj, method, name):
        inner = getattr(obj, method)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

        setattr(obj, method, timed)


def batches():
    out = []
    for s in range(8):
        ids, label = ctr_batch(s)
        out.append((skiff.to_tensor(ids), skiff.to_tensor(label)))
    return out


def single_step_fn():
    table = skiff.nn.Embedding(CTR_ROWS, CTR_DIM, sparse=True)
    model = Ctr(table)
    opt = skiff.optimizer.SGD(learning_rate=LR, parameters=model.parameters())
    data = batches()

    def step(i):
        ids, label = data[i % len(data)]
        loss = F.binary_cross_entropy_with_logits(model(ids), label)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)

    return step


def start_servers(n):
    procs, endpoints = [], []
    for shard in range(n):
        p = subprocess.Popen([sys.executable, "-m", "skiff.distributed.ps.server", "--shard",
                              str(shard), "--shards", str(n), "--port", "0"],
                             stdout=subprocess.PIPE)
        procs.append(p)
    for p in procs:
        line = p.stdout.readline().decode()
        if "listening on" not in line:
            raise RuntimeError(f"a server did not start: {line!r}")
        endpoints.append(line.split()[-1])
    return procs, endpoints


def ps_step_fn(endpoints, phases):
    connection = ps.Connection(endpoints, 0, 1, mode="sync")
    table = ps.DistributedEmbedding("w5", CTR_DIM, init={"kind": "uniform", "low": -0.05,
                                                         "high": 0.05},
                                    optimizer={"kind": "sgd", "lr": LR}, connection=connection)
    model = Ctr(table)
    trainer = ps.Trainer(model, optimizer={"kind": "sgd", "lr": LR}, connection=connection)
    phases.wrap(table, "push", "push row gradients")
    phases.wrap(trainer.dense, "push", "push dense gradients")
    phases.wrap(connection, "barrier", "barrier (servers apply the step)")
    phases.wrap(trainer.dense, "pull", "pull dense values")
    data = batches()

    def step(i):
        ids, label = data[i % len(data)]
        start = time.perf_counter()
        loss = F.binary_cross_entropy_with_logits(model(ids), label)
        loss.backward()
        phases.seconds["forward + backward (with the pull)"] = phases.seconds.get(
            "forward + backward (with the pull)", 0.0) + time.perf_counter() - start
        trainer.step()
        return float(loss)

    return step, connection


def timed(step, steps, offset):
    start = time.perf_counter()
    for i in range(steps):
        step(offset + i)
    return (time.perf_counter() - start) / steps * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--servers", type=int, default=2)
    args = parser.parse_args()
    procs, endpoints = start_servers(args.servers)
    try:
        phases = Phases()
        single = single_step_fn()
        ps_step, connection = ps_step_fn(endpoints, phases)
        for i in range(args.warmup):
            single(i)
            ps_step(i)
        phases.seconds.clear()
        times = {"single": [], "ps": []}
        for r in range(args.rounds):
            offset = args.warmup + r * args.steps
            times["single"].append(timed(single, args.steps, offset))
            times["ps"].append(timed(ps_step, args.steps, offset))
        connection.stop_servers()
    finally:
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    single_ms, ps_ms = (statistics.median(times[k]) for k in ("single", "ps"))
    print(f"W5 step, batch {CTR_BATCH}, skiff eager, {args.rounds} rounds of {args.steps} steps "
          f"(median ms/step)")
    print(f"  single process            {single_ms:8.2f}")
    print(f"  {args.servers} servers, 1 trainer (sync) {ps_ms:8.2f}   overhead "
          f"{ps_ms / single_ms:.2f}x ({ps_ms - single_ms:+.2f} ms)")
    total = args.rounds * args.steps
    print("  PS step by phase (ms/step):")
    for name, seconds in sorted(phases.seconds.items(), key=lambda kv: -kv[1]):
        print(f"    {name:38s} {seconds / total * 1e3:8.2f}")
    print(f"RESULT ps_w5 single_ms={single_ms:.3f} ps_ms={ps_ms:.3f} "
          f"ratio={ps_ms / single_ms:.3f}")


if __name__ == "__main__":
    main()
