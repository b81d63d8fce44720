"""add_scalar on the calling thread: skiff.board.LogWriter beside torch's SummaryWriter and
VisualDL's LogWriter, each in its own process, in alternating rounds; then how long each
takes to have everything on disk (close). A peer whose package is missing is skipped.

    python bench/board_writer.py [--records 200000] [--rounds 5]

skiff is imported from $SKIFF_BUILD_DIR/python (default build/python).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHILD = r'''
import json, sys, tempfile, time
kind, n = sys.argv[1], int(sys.argv[2])
logdir = tempfile.mkdtemp()
if kind == "skiff":
    from skiff.board import LogWriter
    w = LogWriter(logdir)
elif kind == "torch":
    from torch.utils.tensorboard import SummaryWriter
    w = SummaryWriter(logdir)
else:
    from visualdl import LogWriter
    w = LogWriter(logdir=logdir)
for i in range(1000):  # warm-up
    w.add_scalar("warm", 0.5, i)
start = time.perf_counter()
for i in range(n):
    w.add_scalar("train/loss", 0.25, i)
added = time.perf_counter() - start
w.close()
total = time.perf_counter() - start
print(json.dumps({"add_us": added / n * 1e6, "close_s": total - added}))
'''


def run(kind, records, python):
    env = dict(os.environ)
    package = os.path.join(os.environ.get("SKIFF_BUILD_DIR", os.path.join(REPO, "build")),
                           "python")
    env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run([python, "-c", CHILD, kind, str(records)], capture_output=True,
                            text=True, env=env, timeout=600)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1:]
    return json.loads(result.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    peers = {"skiff": sys.executable, "torch": sys.executable, "visualdl": sys.executable}
    times = {k: [] for k in peers}
    closes = {k: [] for k in peers}
    missing = {}
    for _ in range(args.rounds):
        for kind, python in peers.items():
            if kind in missing:
                continue
            out, error = run(kind, args.records, python)
            if out is None:
                missing[kind] = error
                continue
            times[kind].append(out["add_us"])
            closes[kind].append(out["close_s"])
    skiff = statistics.median(times["skiff"])
    print(f"add_scalar, {args.records} records, median of {args.rounds} rounds")
    print(f"{'writer':10} {'µs/add_scalar':>14} {'close s':>8} {'peer/skiff':>10}")
    for kind in peers:
        if kind in missing:
            print(f"{kind:10} skipped: {' '.join(missing[kind])}")
            continue
        t = statistics.median(times[kind])
        print(f"{kind:10} {t:14.3f} {statistics.median(closes[kind]):8.3f} {t / skiff:10.1f}")


if __name__ == "__main__":
    main()
