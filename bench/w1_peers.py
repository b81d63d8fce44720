"""W1 (the tiny RNN reference workload) in the peers: `while i < steps: h = tanh(x @ W + h); i += 1`,
x [1,16], W [16,16], fp32, 10k steps, 2 threads, with the values bench/w1_rnn.cc uses.

Peers: PyTorch eager loop, TorchScript (torch.jit.script), PaddlePaddle eager loop and
paddle.static.nn.while_loop. Each peer runs in its own process (the two frameworks
bring their own OpenMP and math libraries); a peer whose package is missing is
skipped. Prints the median ms per 10k steps and "RESULT <peer> <ms>" lines.

    python bench/w1_peers.py [--reps 7] [--steps 10000] [--peer torch_eager ...]
"""

import argparse
import math
import os
import statistics
import subprocess
import sys
import time

THREADS = 2
DIM = 16
PEERS = ["torch_eager", "torchscript", "paddle_eager", "paddle_static_while"]


def values():
    """x [1,16] and W [16,16] as float32 nested lists, computed like w1_rnn.cc."""
    import numpy as np

    x = np.array([[0.5 * math.sin(0.7 * j + 0.3) for j in range(DIM)]], dtype=np.float64)
    w = np.array([[0.25 * math.cos(1.3 * r + 0.4 * c + 0.1) for c in range(DIM)]
                  for r in range(DIM)], dtype=np.float64)
    return x.astype(np.float32), w.astype(np.float32)


def median_ms(fn, reps):
    """Median wall time of `reps` calls after two warm-up calls; returns (ms, last result)."""
    fn()
    out = fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def run_torch(mode, steps, reps):
    import torch

    torch.set_num_threads(THREADS)
    xv, wv = values()
    x, w = torch.from_numpy(xv), torch.from_numpy(wv)

    if mode == "torch_eager":
        def loop():
            h = torch.zeros(1, DIM)
            i = 0
            while i < steps:
                h = torch.tanh(x @ w + h)
                i += 1
            return h
    else:
        @torch.jit.script
        def scripted(x: torch.Tensor, w: torch.Tensor, steps: int) -> torch.Tensor:
            h = torch.zeros(1, 16)
            i = 0
            while i < steps:
                h = torch.tanh(x @ w + h)
                i += 1
            return h

        def loop():
            return scripted(x, w, steps)

    ms, h = median_ms(loop, reps)
    return ms, float(h.sum())


def run_paddle(mode, steps, reps):
    import paddle

    if hasattr(paddle.base.core, "set_num_threads"):
        paddle.base.core.set_num_threads(THREADS)
    paddle.set_device("cpu")
    xv, wv = values()

    if mode == "paddle_eager":
        x, w = paddle.to_tensor(xv), paddle.to_tensor(wv)

        def loop():
            h = paddle.zeros([1, DIM], dtype="float32")
            i = 0
            while i < steps:
                h = paddle.tanh(paddle.matmul(x, w) + h)
                i += 1
            return h

        ms, h = median_ms(loop, reps)
        return ms, float(h.sum())

    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [1, DIM], "float32")
        w = paddle.static.data("W", [DIM, DIM], "float32")
        h0 = paddle.full([1, DIM], 0.0, "float32")
        i0 = paddle.full([1], 0, "int64")
        n = paddle.full([1], steps, "int64")

        def cond(i, h):
            return paddle.less_than(i, n)

        def body(i, h):
            return [i + 1, paddle.tanh(paddle.matmul(x, w) + h)]

        _, h_final = paddle.static.nn.while_loop(cond, body, [i0, h0])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    feed = {"x": xv, "W": wv}

    def loop():
        return exe.run(main, feed=feed, fetch_list=[h_final])[0]

    ms, h = median_ms(loop, reps)
    return ms, float(h.sum())


def run_one(peer, steps, reps):
    """Runs one peer in this process; prints its RESULT and CHECKSUM lines."""
    package = "torch" if peer.startswith("torch") else "paddle"
    try:
        __import__(package)
    except ImportError:
        print(f"SKIP {peer} (package '{package}' is not installed)")
        return
    runner = run_torch if package == "torch" else run_paddle
    ms, checksum = runner(peer, steps, reps)
    ms_10k = ms * 10000.0 / steps
    print(f"RESULT {peer} {ms_10k:.4f}")
    print(f"CHECKSUM {peer} {checksum:.6f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--peer", action="append", choices=PEERS,
                    help="run only these peers (default: all)")
    ap.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    reps = max(5, args.reps)
    peers = args.peer or PEERS

    if args.in_process:
        for peer in peers:
            run_one(peer, args.steps, reps)
        return

    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS),
               CPU_NUM="1")
    print(f"W1 peers, {args.steps} steps, {reps} reps, {THREADS} threads "
          "(median, ms per 10k steps)")
    for peer in peers:
        cmd = [sys.executable, os.path.abspath(__file__), "--in-process", "--peer", peer,
               "--reps", str(reps), "--steps", str(args.steps)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        lines = [ln for ln in proc.stdout.splitlines()
                 if ln.startswith(("RESULT", "CHECKSUM", "SKIP"))]
        if proc.returncode != 0:
            err = proc.stderr.strip().splitlines()
            print(f"FAILED {peer}: {err[-1] if err else 'exit code ' + str(proc.returncode)}")
            continue
        for ln in lines:
            print(ln)
            if ln.startswith("RESULT"):
                print(f"  {peer:<22} {float(ln.split()[2]):9.3f} ms")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
