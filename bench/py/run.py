"""Runs the Python workloads of bench/py (skiff from Python: W1 eager and to_static, W2/W3
eager training, W4 through to_static) side by side with the C++-built skiff programs
(<build>/bench/w1_rnn, w2_mlp, w3_cnn, w4_lstm) and the peers (bench/w1_peers.py,
bench/peers.py, bench/w4_peers.py: PyTorch and PaddlePaddle), 2 threads, each in its own
process, in alternating rounds; prints one table of times, ratios other_time / skiff_time
(above 1: the skiff Python row is faster), the check values (W1 checksum of h, W2-W4 the
losses of the first and a later step) and the issue's targets, met or missed.

Waits before each process until the 1-minute load average is below --max-load (shared
machine), and prints the loads it measured at.

    SKIFF_BUILD_DIR=build .venv/bin/python bench/py/run.py [--workloads w1,w2,w3,w4]
                                                            [--reps 7] [--rounds 3]
"""

import argparse
import os
import statistics
import sys
import time

import harness
import compare
import records

PY = sys.executable
W1_PEERS = ["torch_eager", "torchscript", "paddle_eager"]

# Per workload: the processes of a round, the table's rows (key, label), the skiff Python
# rows every ratio column is taken against, and the targets (skiff row, other row, least
# ratio other / skiff).
WORKLOADS = {
    "w1": dict(
        title="W1 tiny RNN, 10k steps", unit="ms/10k steps", check="checksum",
        commands=lambda b, reps: [
            [PY, os.path.join(harness.PY_DIR, "w1.py"), "--reps", reps],
            [os.path.join(b, "bench", "w1_rnn"), reps],
            [PY, os.path.join(harness.BENCH_DIR, "w1_peers.py"), "--reps", reps]
            + [a for p in W1_PEERS for a in ("--peer", p)]],
        cpp_key="skiff_interpreter",
        rows=[("skiff_eager", "skiff eager Python loop"),
              ("skiff_to_static", "skiff to_static (while op)"),
              ("skiff_interpreter", "skiff C++-built program (while op)"),
              ("skiff_compiled", "skiff program compiled to C++"),
              ("handwritten_cpp", "hand-written C++ loop (limit)"),
              ("torch_eager", "PyTorch eager loop"),
              ("torchscript", "TorchScript (reference)"),
              ("paddle_eager", "Paddle eager loop")],
        bases=["skiff_eager", "skiff_to_static"],
        targets=[("skiff_eager", "torch_eager", 2.0), ("skiff_eager", "paddle_eager", 2.0),
                 ("skiff_to_static", "torch_eager", 10.0)]),
    "w2": dict(
        title="W2 MLP 784-512-512-10, b64, Adam", unit="ms/step", check="loss",
        commands=lambda b, reps: [
            [PY, os.path.join(harness.PY_DIR, "w2_w3.py"), "--workload", "w2", "--reps", reps,
             "--same-process"],
            [os.path.join(b, "bench", "w2_mlp"), reps],
            [PY, os.path.join(harness.BENCH_DIR, "peers.py"), "--workload", "w2", "--reps",
             reps]],
        cpp_key="skiff",
        rows=[("skiff_py", "skiff eager Python"), ("skiff", "skiff C++-built program"),
              ("torch", "PyTorch eager"), ("paddle", "Paddle eager"),
              ("skiff_py_alternating", "skiff eager, alternating in one process"),
              ("skiff_py_program", "  with the same network as a program")],
        bases=["skiff_py"],
        targets=[("skiff_py", "skiff", 1 / 1.15), ("skiff_py", "torch", 1.0),
                 ("skiff_py", "paddle", 1.0),
                 ("skiff_py_alternating", "skiff_py_program", 1 / 1.15)]),
    "w4": dict(
        title="W4 LSTM LM, b20 x 35, SGD, clip", unit="ms/step", check="loss",
        commands=lambda b, reps: [
            [PY, os.path.join(harness.PY_DIR, "w4.py"), "--reps", reps],
            [os.path.join(b, "bench", "w4_lstm"), reps],
            [PY, os.path.join(harness.BENCH_DIR, "w4_peers.py"), "--reps", reps]],
        cpp_key="skiff",
        rows=[("skiff_to_static", "skiff to_static (lstm ops)"),
              ("skiff", "skiff C++-built program (lstm ops)"),
              ("torch", "PyTorch eager"), ("paddle", "Paddle eager")],
        bases=["skiff_to_static"],
        targets=[("skiff_to_static", "torch", 1.0), ("skiff_to_static", "paddle", 1.0)]),
}
WORKLOADS["w3"] = dict(
    WORKLOADS["w2"], title="W3 CNN, b64, SGD momentum",
    commands=lambda b, reps: [
        [PY, os.path.join(harness.PY_DIR, "w2_w3.py"), "--workload", "w3", "--reps", reps,
         "--same-process"],
        [os.path.join(b, "bench", "w3_cnn"), reps],
        [PY, os.path.join(harness.BENCH_DIR, "peers.py"), "--workload", "w3", "--reps", reps]])


def wait_for_load(max_load, patience_s, loads):
    """Sleeps until the 1-minute load average is below max_load (at most patience_s)."""
    waited = 0
    while os.getloadavg()[0] >= max_load and waited < patience_s:
        if waited % 60 == 0:
            print(f"    load {os.getloadavg()[0]:.2f} >= {max_load}: waiting", file=sys.stderr,
                  flush=True)
        time.sleep(10)
        waited += 10
    loads.append(os.getloadavg()[0])


def measure(name, spec, args, env, loads):
    """{key: {round: ms}} and {key: check value} over alternating rounds; a process that
    fails is reported and leaves its rows out of that round."""
    reps = str(max(5, args.reps))
    times, checks = {}, {}
    for r in range(args.rounds):
        print(f"  {name}: round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
        for cmd in spec["commands"](args.build, reps):
            wait_for_load(args.max_load, args.patience, loads)
            what = os.path.basename(cmd[1] if cmd[0] == PY else cmd[0])
            try:
                out = compare.parse(compare.run(cmd, env, what), spec["cpp_key"])
            except SystemExit as failure:  # compare.run's message names the process
                print(f"  {name} round {r + 1}: {failure}")
                continue
            for key, ms in out["ms"].items():
                times.setdefault(key, {})[r] = ms
            checks.update(out[spec["check"]])
    return times, checks


def ratio(times, key, base):
    """Median over rounds of times[key] / times[base] (taken within each round)."""
    rounds = sorted(set(times.get(key, {})) & set(times.get(base, {})))
    if not rounds:
        return None
    return statistics.median(times[key][r] / times[base][r] for r in rounds)


def print_table(results, args):
    print(f"\n2 threads; time = median over {args.rounds} rounds of a process's median of >= "
          f"{max(5, args.reps)} reps after warm-up; ratio = row time / skiff Python time "
          "(median of per-round ratios; above 1: skiff's Python row is faster)")
    print(f"{'workload':34} {'implementation':36} {'time':>9} {'unit':<13} {'ratio':>13}  check")
    for name, spec, times, checks in results:
        bases = spec["bases"]
        for i, (key, label) in enumerate(spec["rows"]):
            if key not in times:
                continue
            head = spec["title"] if i == 0 else ""
            cols = [ratio(times, key, b) for b in bases]
            rtxt = " / ".join("-" if c is None else f"{c:.2f}" for c in cols)
            print(f"{head:34} {label:36} {statistics.median(times[key].values()):9.3f} "
                  f"{spec['unit']:<13} {rtxt:>13}  "
                  f"{compare.format_check(spec['check'], checks.get(key))}")
        if len(bases) > 1:
            print(f"{'':34} (ratios against: {' / '.join(bases)})")
        compare.warn_on_checks(name, dict(base=bases[0], check=spec["check"]), checks)
    print("\nTargets (issue 4): other / skiff Python")
    for name, spec, times, _ in results:
        for mine, other, least in spec["targets"]:
            r = ratio(times, other, mine)
            verdict = "not run" if r is None else "met" if r >= least else "MISSED"
            shown = "-" if r is None else f"{r:.2f}"
            print(f"  {name} {other:18} / {mine:16} {shown:>7}  (target >= {least:.2f})  "
                  f"{verdict}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=harness.build_dir(),
                    help="the CMake build directory (skiff package and bench binaries)")
    ap.add_argument("--workloads", default="w1,w2,w3,w4")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-load", type=float, default=2.5,
                    help="start a process only below this 1-minute load average")
    ap.add_argument("--patience", type=int, default=1800,
                    help="seconds to wait for the load before running anyway")
    ap.add_argument("--no-record", action="store_true",
                    help="do not write the run's record into bench/results (records.py)")
    args = ap.parse_args()
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = sorted(set(names) - set(WORKLOADS))
    if unknown:
        ap.error(f"unknown workloads {unknown} (known: {', '.join(WORKLOADS)})")
    env = dict(os.environ, OMP_NUM_THREADS="2", MKL_NUM_THREADS="2", CPU_NUM="1",
               SKIFF_BUILD_DIR=args.build)
    loads = []
    results = []
    for name in names:
        times, checks = measure(name, WORKLOADS[name], args, env, loads)
        results.append((name, WORKLOADS[name], times, checks))
    print_table(results, args)
    print(f"\n1-minute load average when each process started: min {min(loads):.2f}, median "
          f"{statistics.median(loads):.2f}, max {max(loads):.2f} on {os.cpu_count()} CPUs")
    if not args.no_record:
        rows = [{"workload": spec["title"], "implementation": label,
                 "time": statistics.median(times[key].values()), "unit": spec["unit"],
                 "ratio": ratio(times, key, spec["bases"][0])}
                for _, spec, times, _ in results for key, label in spec["rows"] if key in times]
        records.report("py_run", rows, loads)


if __name__ == "__main__":
    main()
