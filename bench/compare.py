"""Runs W1 in skiff (bench/w1_rnn) and in the peers (bench/w1_peers.py) in one go and
prints peer_time / skiff_time for each peer (above 1: skiff is faster).

    .venv/bin/python bench/compare.py [--build build] [--reps 7]

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
PEER_NAMES = {
    "torch_eager": "PyTorch eager loop",
    "torchscript": "TorchScript (torch.jit.script)",
    "paddle_eager": "Paddle eager loop",
    "paddle_static_while": "Paddle static while_loop",
}


def parse(stdout):
    """RESULT lines -> {name: ms}; CHECKSUM lines -> {name: value}."""
    results, sums = {}, {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RESULT":
            results[parts[1]] = float(parts[2])
        elif len(parts) == 3 and parts[0] == "CHECKSUM":
            sums[parts[1]] = float(parts[2])
        elif len(parts) == 2 and parts[0] == "CHECKSUM":
            sums["skiff"] = float(parts[1])
    return results, sums


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                    help="the CMake build directory holding bench/w1_rnn")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating skiff/peer rounds (median over rounds)")
    args = ap.parse_args()
    reps = str(max(5, args.reps))

    binary = os.path.join(args.build, "bench", "w1_rnn")
    env = dict(os.environ, OMP_NUM_THREADS="2")
    # Rounds alternate skiff and the peers, so that load drifting on a shared machine
    # hits both alike; each number is the median over rounds of a run's median.
    mine_runs, theirs_runs = {}, {}
    my_sums, their_sums = {}, {}
    for r in range(args.rounds):
        skiff = subprocess.run([binary, reps], env=env, capture_output=True, text=True)
        if r == 0:
            sys.stdout.write(skiff.stdout)
        if skiff.returncode != 0:
            sys.exit(f"w1_rnn failed: {skiff.stderr.strip()}")
        peers = subprocess.run(
            [sys.executable, os.path.join(HERE, "w1_peers.py"), "--reps", reps],
            capture_output=True, text=True)
        if peers.returncode != 0:
            sys.exit(f"w1_peers.py failed: {peers.stderr.strip()}")
        if r == 0:
            for line in peers.stdout.splitlines():
                if line.startswith(("SKIP", "FAILED")):
                    print(line)
        for runs, sums, out in ((mine_runs, my_sums, skiff.stdout),
                                (theirs_runs, their_sums, peers.stdout)):
            results, checks = parse(out)
            for k, v in results.items():
                runs.setdefault(k, []).append(v)
            sums.update(checks)
    mine = {k: statistics.median(v) for k, v in mine_runs.items()}
    theirs = {k: statistics.median(v) for k, v in theirs_runs.items()}

    base = mine["skiff_interpreter"]
    print()
    print(f"W1, 2 threads, ms per 10k steps (median of {reps} reps, median over "
          f"{args.rounds} rounds); ratio = peer / skiff interpreter, per round, median")
    print(f"load average before the summary: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"{'':34} {'ms':>9} {'ratio':>8}   h checksum")
    print(f"{'skiff interpreter (while op)':34} {base:9.3f} {1.0:8.2f}   "
          f"{my_sums.get('skiff', float('nan')):.6f}")
    hand = mine.get("handwritten_cpp")
    if hand is not None:
        ratio = statistics.median(
            h / m for h, m in zip(mine_runs["handwritten_cpp"], mine_runs["skiff_interpreter"]))
        print(f"{'hand-written C++ loop (limit)':34} {hand:9.3f} {ratio:8.3f}")
    for key, label in PEER_NAMES.items():
        if key not in theirs:
            print(f"{label:34} {'-':>9} {'-':>8}   (not run)")
            continue
        ms = theirs[key]
        # The ratio is taken within each round (same load), then the median over rounds.
        pairs = zip(theirs_runs[key], mine_runs["skiff_interpreter"])
        ratio = statistics.median(t / m for t, m in pairs)
        print(f"{label:34} {ms:9.3f} {ratio:8.2f}   {their_sums.get(key, float('nan')):.6f}")
        if "skiff" in my_sums and key in their_sums and \
                abs(their_sums[key] - my_sums["skiff"]) > 1e-3:
            print(f"  warning: {label} ends with a different h (checksum differs by "
                  f"{abs(their_sums[key] - my_sums['skiff']):.2e})")


if __name__ == "__main__":
    main()
