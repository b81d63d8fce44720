"""Runs W4 (LSTM language model training step) in skiff (bench/w4_lstm) and in the peers
(bench/w4_peers.py) in alternating rounds and prints peer_time / skiff_time for each peer
(above 1: skiff is faster), with each framework's first-step loss as a cross-check.

    .venv/bin/python bench/compare_w4.py [--build build] [--reps 7] [--rounds 3] [--threads 2]

Run it with the virtual environment's python (it runs the peers with the same
interpreter). Absolute times drift on shared machines; ratios measured side by side
in one run are what to compare.
"""

import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_NAMES = {"torch": "PyTorch eager", "paddle": "Paddle eager"}


def parse(stdout):
    """RESULT lines -> {name: ms}; LOSS lines -> {name: (first, later)}."""
    results, losses = {}, {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RESULT":
            results[parts[1]] = float(parts[2])
        elif len(parts) == 4 and parts[0] == "LOSS":
            losses[parts[1]] = (float(parts[2]), float(parts[3]))
    return results, losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                    help="the CMake build directory holding bench/w4_lstm")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating skiff/peer rounds (median over rounds)")
    args = ap.parse_args()
    reps = str(max(5, args.reps))

    binary = os.path.join(args.build, "bench", "w4_lstm")
    threads = str(args.threads)
    env = dict(os.environ, OMP_NUM_THREADS=threads)
    runs, losses = {}, {}
    for r in range(args.rounds):
        skiff = subprocess.run([binary, reps, "--threads", threads], env=env,
                               capture_output=True, text=True)
        if skiff.returncode != 0:
            sys.exit(f"w4_lstm failed: {skiff.stderr.strip()}")
        peers = subprocess.run(
            [sys.executable, os.path.join(HERE, "w4_peers.py"), "--reps", reps, "--threads",
             threads],
            capture_output=True, text=True)
        if peers.returncode != 0:
            sys.exit(f"w4_peers.py failed: {peers.stderr.strip()}")
        if r == 0:
            sys.stdout.write(skiff.stdout)
            for line in peers.stdout.splitlines():
                if line.startswith(("SKIP", "FAILED")):
                    print(line)
        round_results = {}
        for out in (skiff.stdout, peers.stdout):
            results, loss = parse(out)
            round_results.update(results)
            losses.update(loss)
        for k, v in round_results.items():
            runs.setdefault(k, []).append(v)
        sys.stdout.flush()

    base = statistics.median(runs["skiff"])
    print()
    print(f"W4, {threads} threads, ms per training step (median of {reps} reps, median over "
          f"{args.rounds} rounds); ratio = peer / skiff, per round, median")
    print(f"load average before the summary: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'':24} {'ms':>9} {'ratio':>8}   first loss   loss after 3 steps")

    def loss_cols(name):
        first, later = losses.get(name, (float("nan"), float("nan")))
        return f"{first:10.6f}   {later:10.6f}"

    print(f"{'skiff interpreter':24} {base:9.3f} {1.0:8.2f}   {loss_cols('skiff')}")
    for key, label in PEER_NAMES.items():
        if key not in runs:
            print(f"{label:24} {'-':>9} {'-':>8}   (not run)")
            continue
        ratio = statistics.median(t / m for t, m in zip(runs[key], runs["skiff"]))
        print(f"{label:24} {statistics.median(runs[key]):9.3f} {ratio:8.2f}   {loss_cols(key)}")
        if "skiff" in losses and key in losses and \
                abs(losses[key][0] - losses["skiff"][0]) > 1e-3:
            print(f"  warning: {label}'s first loss differs from skiff's by "
                  f"{abs(losses[key][0] - losses['skiff'][0]):.2e}")


if __name__ == "__main__":
    main()
