"""Distributed training, skiff side by side with torch.distributed (Gloo), all processes
on 127.0.0.1 of this machine:

    .venv/bin/python bench/dist.py allreduce [--ranks 2] [--reps 20]
        all_reduce (sum, float32) from 4 KiB to 64 MiB: median time and bus bandwidth
        (2 (n-1)/n x bytes / time), skiff (Gloo through skiff's communicator) and torch
        (ProcessGroupGloo), in alternating rounds.
    .venv/bin/python bench/dist.py w3 [--steps 60]
        W3's training step (batch 64 per process): DataParallel on 2 processes x 1 thread,
        the same without the gradient all-reduce (no_sync: the DDP overhead), and 1 process
        x 2 threads; samples per second, skiff and torch (DistributedDataParallel).
    .venv/bin/python bench/dist.py recovery [--kills 3]
        4 workers train an MLP; a worker is killed with SIGKILL every few seconds: the time
        from the kill to the next step the survivors finish. skiff's ElasticTrainer (the
        others go on in the same processes) against torchrun --max-restarts (it restarts
        every worker).
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_PY = os.path.join(ROOT, "build", "python")
SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_with(**extra):
    env = dict(os.environ, PYTHONPATH=BUILD_PY, OMP_NUM_THREADS="1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


# ---- workers (run as: bench/dist.py _worker KIND ...) -------------------------------------
def worker_allreduce(framework, reps):
    import numpy as np
    times = {}
    if framework == "skiff":
        import skiff
        import skiff.distributed as dist
        dist.init_parallel_env()
        rank, n = dist.get_rank(), dist.get_world_size()
        make = lambda count: skiff.to_tensor(np.ones(count, np.float32))  # noqa: E731
        reduce, barrier = dist.all_reduce, dist.barrier
    else:
        import torch
        import torch.distributed as dist
        dist.init_process_group("gloo")
        rank, n = dist.get_rank(), dist.get_world_size()
        make = lambda count: torch.ones(count)  # noqa: E731
        reduce, barrier = dist.all_reduce, dist.barrier
    for size in SIZES:
        x = make(size // 4)
        for _ in range(3):
            reduce(x)
        samples = []
        for _ in range(reps):
            barrier()
            t = time.perf_counter()
            reduce(x)
            samples.append(time.perf_counter() - t)
        times[size] = statistics.median(samples)
    if rank == 0:
        print(json.dumps({"n": n, "times": times}))


def report_throughput(step, steps, dist):
    """Rank 0 prints the samples per second of ``steps`` calls of ``step`` (batch 64 per
    rank), after 5 warm-up calls; ``dist`` is skiff.distributed or torch.distributed."""
    for _ in range(5):
        step()
    dist.barrier()
    t = time.perf_counter()
    for _ in range(steps):
        step()
    dist.barrier()
    elapsed = time.perf_counter() - t
    if dist.get_rank() == 0:
        print(json.dumps({"samples_per_s": steps * 64 * dist.get_world_size() / elapsed}))


def worker_w3(mode, steps):
    import numpy as np
    import skiff
    import skiff.distributed as dist
    import skiff.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    from fashion_mnist import ConvNet
    dist.init_parallel_env()
    skiff.seed(0)
    net = ConvNet()
    model = dist.DataParallel(net) if dist.get_world_size() > 1 else net
    opt = skiff.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    rng = np.random.default_rng(dist.get_rank())
    x = skiff.to_tensor(rng.standard_normal([64, 1, 28, 28]).astype(np.float32))
    y = skiff.to_tensor(rng.integers(0, 10, [64]))

    def step():
        loss = F.cross_entropy(model(x), y)
        if mode == "no_sync":
            with model.no_sync():
                loss.backward()
        else:
            loss.backward()
        opt.step()
        opt.clear_grad()

    report_throughput(step, steps, dist)


def worker_w3_torch(mode, steps):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(64 * 7 * 7, 10))
    model = nn.parallel.DistributedDataParallel(net) if dist.get_world_size() > 1 else net
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(dist.get_rank())
    x, y = torch.randn(64, 1, 28, 28, generator=g), torch.randint(0, 10, [64], generator=g)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        if mode == "no_sync" and dist.get_world_size() > 1:
            with model.no_sync():
                loss.backward()
        else:
            loss.backward()
        opt.step()
        opt.zero_grad()

    report_throughput(step, steps, dist)


def worker_recovery_torch(log):
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(16, 20), torch.randint(0, 4, [16])
    with open(log, "a", buffering=1) as f:
        while True:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            f.write(f"{time.time()} {os.getpid()}\n")


def worker_recovery_skiff(log):
    import numpy as np
    import skiff
    import skiff.nn as nn
    import skiff.nn.functional as F
    from skiff.distributed import elastic
    rng = np.random.default_rng(0)
    data = [(rng.standard_normal(20).astype(np.float32), int(rng.integers(0, 4)))
            for _ in range(4000)]
    skiff.seed(0)
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = skiff.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
    with open(log, "a", buffering=1) as f:
        elastic.ElasticTrainer(model, opt, data, 16, lambda m, a, b: F.cross_entropy(m(a), b),
                               min_workers=2, max_workers=4, step_timeout=10.0,
                               on_step=lambda info: f.write(f"{time.time()} {info['world']}\n")
                               ).fit(1000)


# ---- drivers ------------------------------------------------------------------------------
def run_skiff_job(n, args, extra_env=None):
    from skiff.distributed.etcd_server import LocalEtcd
    with LocalEtcd() as etcd:
        procs = [subprocess.Popen([sys.executable, __file__, "_worker", *args],
                                  env=env_with(SKIFF_RANK=r, SKIFF_WORLD_SIZE=n,
                                               SKIFF_ETCD=etcd.endpoint, SKIFF_JOB_ID="bench",
                                               **(extra_env or {})),
                                  stdout=subprocess.PIPE, text=True) for r in range(n)]
        out = [p.communicate()[0] for p in procs]
    return json.loads(out[0].strip().splitlines()[-1])


def run_torch_job(n, args, extra_env=None):
    port = free_port()
    procs = [subprocess.Popen([sys.executable, __file__, "_worker", *args],
                              env=env_with(RANK=r, WORLD_SIZE=n, MASTER_ADDR="127.0.0.1",
                                           MASTER_PORT=port, **(extra_env or {})),
                              stdout=subprocess.PIPE, text=True) for r in range(n)]
    out = [p.communicate()[0] for p in procs]
    return json.loads(out[0].strip().splitlines()[-1])


def bench_allreduce(opts):
    rows = {"skiff": [], "torch": []}
    for _ in range(opts.rounds):
        rows["skiff"].append(run_skiff_job(opts.ranks, ["allreduce", "skiff", str(opts.reps)]))
        rows["torch"].append(run_torch_job(opts.ranks, ["allreduce", "torch", str(opts.reps)]))
    n = opts.ranks
    print(f"all_reduce sum float32, {n} ranks on 127.0.0.1, median of {opts.reps} x "
          f"{opts.rounds} rounds (best round)")
    print(f"{'size':>9} {'skiff ms':>9} {'torch ms':>9} {'skiff GB/s':>10} {'torch GB/s':>10} "
          f"{'torch/skiff':>11}")
    for size in SIZES:
        s = min(r["times"][str(size)] for r in rows["skiff"])
        t = min(r["times"][str(size)] for r in rows["torch"])
        bw = lambda sec: 2 * (n - 1) / n * size / sec / 1e9  # noqa: E731
        print(f"{size >> 10:>7}Ki {s * 1e3:9.3f} {t * 1e3:9.3f} {bw(s):10.2f} {bw(t):10.2f} "
              f"{t / s:11.2f}")


def bench_w3(opts):
    configs = [("2 processes x 1 thread, DataParallel", 2, 1, "sync"),
               ("2 processes x 1 thread, no all-reduce", 2, 1, "no_sync"),
               ("1 process x 2 threads", 1, 2, "sync")]
    results = {}
    for _ in range(opts.rounds):
        for name, n, threads, mode in configs:
            r = run_skiff_job(n, ["w3", mode, str(opts.steps)],
                              extra_env={"OMP_NUM_THREADS": threads})
            t = run_torch_job(n, ["w3_torch", mode, str(opts.steps)],
                              extra_env={"OMP_NUM_THREADS": threads})
            results[("skiff", name)] = max(results.get(("skiff", name), 0), r["samples_per_s"])
            results[("torch", name)] = max(results.get(("torch", name), 0), t["samples_per_s"])
    print(f"W3 training, batch 64 per process, samples/s (best of {opts.rounds} rounds)")
    print(f"{'':40s} {'skiff':>8} {'torch':>8}")
    for name, *_ in configs:
        print(f"{name:40s} {results[('skiff', name)]:8.0f} {results[('torch', name)]:8.0f}")
    for fw in ("skiff", "torch"):
        sync = results[(fw, configs[0][0])]
        nosync = results[(fw, configs[1][0])]
        print(f"{fw}: DDP overhead (all-reduce vs none) {100 * (nosync / sync - 1):.1f}%, "
              f"2x1 / 1x2 throughput {sync / results[(fw, configs[2][0])]:.2f}")


def recovery_times(log_dir, kills):
    """Per kill: seconds to the first step of a world formed after it (skiff, whose log
    lines carry the world; a step in flight at the kill may still finish in the old one)
    or of a worker started after it (torch, whose lines carry the worker's pid)."""
    steps = sorted(tuple(map(float, line.split())) for f in os.listdir(log_dir)
                   if f.startswith("steps") for line in open(os.path.join(log_dir, f)))
    out = []
    for k in kills:
        old = {m for t, m in steps if t <= k}
        after = [t for t, m in steps if t > k and m not in old]
        if after:
            out.append(after[0] - k)
    return out


def torch_workers():
    """The workers torchrun started (not torchrun itself, whose command line names them too)."""
    out = subprocess.run(["pgrep", "-f", "_worker recovery_torch"], capture_output=True,
                         text=True).stdout
    pids = []
    for pid in map(int, out.split()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"torch.distributed.run" not in f.read():
                    pids.append(pid)
        except OSError:
            pass
    return pids


def recovery(opts):
    results = {}
    # skiff: 4 workers, each killed worker replaced by a newcomer.
    from skiff.distributed.etcd_server import LocalEtcd
    with tempfile.TemporaryDirectory() as d, LocalEtcd() as etcd:
        env = env_with(SKIFF_ETCD=etcd.endpoint, SKIFF_JOB_ID="recovery")
        start = lambda i: subprocess.Popen(  # noqa: E731
            [sys.executable, __file__, "_worker", "recovery_skiff",
             os.path.join(d, f"steps.{i}")], env=env)
        procs = [start(i) for i in range(4)]
        kills = []
        time.sleep(6)
        for k in range(opts.kills):
            victim = procs[k]
            victim.send_signal(signal.SIGKILL)
            kills.append(time.time())
            victim.wait()
            procs.append(start(4 + k))
            time.sleep(5)
        for p in procs:
            p.kill()
            p.wait()
        results["skiff ElasticTrainer"] = recovery_times(d, kills)
    # torch: torchrun restarts the whole group after a worker dies.
    with tempfile.TemporaryDirectory() as d:
        d = os.environ.get("SKIFF_BENCH_KEEP", d)
        os.makedirs(d, exist_ok=True)
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
               "--nproc_per_node", "4", "--max-restarts", str(2 * opts.kills + 2),
               "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
               __file__, "_worker", "recovery_torch", os.path.join(d, "steps.0")]
        log = open(os.path.join(d, "torchrun.log"), "w")
        runner = subprocess.Popen(cmd, env=env_with(), stdout=log, stderr=log)
        kills = []
        deadline = time.time() + 120  # until the first steps (importing torch is slow)
        while not os.path.exists(os.path.join(d, "steps.0")) and time.time() < deadline:
            time.sleep(0.5)
        time.sleep(5)
        for _ in range(opts.kills):
            workers = torch_workers()
            if not workers:
                sys.exit("no torchrun workers: " + "".join(l for l in open(log.name) if not l.startswith("[rank"))[-3000:])
            os.kill(workers[0], signal.SIGKILL)
            kills.append(time.time())
            time.sleep(30)
        runner.send_signal(signal.SIGTERM)
        runner.wait()
        results["torchrun --max-restarts"] = recovery_times(d, kills)
    print(f"from a SIGKILL to the survivors' next finished step (4 workers, {opts.kills} kills)")
    for name, r in results.items():
        print(f"{name:26s} " + ", ".join(f"{x:.2f}" for x in r) + " s")


def main():
    if sys.argv[1] == "_worker":
        kind, args = sys.argv[2], sys.argv[3:]
        if kind == "allreduce":
            worker_allreduce(args[0], int(args[1]))
        elif kind == "w3":
            worker_w3(args[0], int(args[1]))
        elif kind == "w3_torch":
            worker_w3_torch(args[0], int(args[1]))
        elif kind == "recovery_torch":
            worker_recovery_torch(args[0])
        elif kind == "recovery_skiff":
            worker_recovery_skiff(args[0])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["allreduce", "w3", "recovery"])
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--kills", type=int, default=3)
    opts = p.parse_args()
    sys.path.insert(0, BUILD_PY)
    {"allreduce": bench_allreduce, "w3": bench_w3, "recovery": recovery}[opts.what](opts)


if __name__ == "__main__":
    main()
