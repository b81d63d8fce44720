"""Runs workloads in skiff (bench/<binary>) and in the peers (bench/w1_peers.py,
bench/peers.py) side by side and prints one table of peer_time / skiff_time per peer
(above 1: skiff is faster), with each implementation's check value (W1/W7 checksum,
W2/W3/W5 losses of the first and fifth step, W8 test accuracy), and with --memory the peak
resident set size of W3 training (50 steps) in each framework's own process.

    .venv/bin/python bench/compare.py [--build build] [--workloads w1,w2,w3,w5,w7,w8]
                                      [--reps 7] [--rounds 3] [--memory] [--max-isa avx2]

Each run is kept as JSON in bench/results/ and compared with the last record on the same
kind of CPU (records.py; --no-record to skip).

--max-isa avx2 runs every framework as on a CPU without AVX-512 (an AMD EPYC before Zen 4):
skiff through SKIFF_MAX_CPU_ISA, and the libraries of all three through their own switches
(oneDNN: ONEDNN_MAX_CPU_ISA, MKL: MKL_ENABLE_INSTRUCTIONS, PyTorch's kernels:
ATEN_CPU_CAPABILITY). PaddlePaddle's own kernels have no such switch.

Run it with the virtual environment's python (it runs the peers with the same
interpreter). Absolute times drift on shared machines; ratios measured side by side
in one run are what to compare.
"""

import argparse
import os
import statistics
import subprocess
import sys

import records

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_PY = os.path.join(HERE, "peers.py")

# Per workload: the skiff binary, the peer command, the unit, the skiff row every ratio
# is taken against, and the rows of the table (key, label) in order.
WORKLOADS = {
    "w1": dict(
        binary="w1_rnn", peers=[os.path.join(HERE, "w1_peers.py")],
        title="W1 tiny RNN (while op), 10k steps", unit="ms/10k steps",
        base="skiff_interpreter", check="checksum",
        rows=[("skiff_interpreter", "skiff interpreter (while op)"),
              ("skiff_compiled", "skiff compiled (skiff compile --lib)"),
              ("handwritten_cpp", "hand-written C++ loop (limit)"),
              ("torch_eager", "PyTorch eager loop"),
              ("torchscript", "TorchScript (torch.jit.script)"),
              ("paddle_eager", "Paddle eager loop"),
              ("paddle_static_while", "Paddle static while_loop")]),
    "w2": dict(
        binary="w2_mlp", peers=[PEERS_PY, "--workload", "w2"],
        title="W2 MLP 784-512-512-10, b64, Adam", unit="ms/step", base="skiff", check="loss",
        rows=[("skiff", "skiff program"), ("torch", "PyTorch eager"),
              ("paddle", "Paddle eager")]),
    "w3": dict(
        binary="w3_cnn", peers=[PEERS_PY, "--workload", "w3"],
        title="W3 CNN, b64, SGD momentum", unit="ms/step", base="skiff", check="loss",
        rows=[("skiff", "skiff program"), ("torch", "PyTorch eager"),
              ("paddle", "Paddle eager")]),
    "w5": dict(
        binary="w5_ctr", peers=[PEERS_PY, "--workload", "w5"],
        title="W5 sparse CTR, 1M x 16 table, b512", unit="ms/step", base="skiff",
        check="loss",
        rows=[("skiff", "skiff program"), ("torch", "PyTorch eager (sparse)"),
              ("paddle", "Paddle eager (sparse)")]),
    "w7": dict(
        binary="w7_gemm", peers=[PEERS_PY, "--workload", "w7"],
        title="W7 fp32 GEMM 1024^3", unit="ms/product", base="skiff", check="checksum",
        rows=[("skiff", "skiff matmul op (executor)"),
              ("onednn_sgemm", "oneDNN dnnl_sgemm direct"),
              ("onednn_matmul", "oneDNN matmul primitive direct"),
              ("torch", "torch.matmul"), ("paddle", "paddle.matmul")]),
    "w8": dict(
        binary="w8_fashion", peers=[PEERS_PY, "--workload", "w8"],
        title="W8 Fashion-MNIST, 1 epoch + test", unit="ms/epoch", base="skiff",
        check="accuracy", max_rounds=1, reps=5,
        rows=[("skiff", "skiff (idx.h + BatchReader)"),
              ("torch", "PyTorch (numpy + DataLoader)"),
              ("paddle", "Paddle (numpy + DataLoader)")]),
}


def parse(stdout, base):
    """RESULT / CHECKSUM / LOSS / ACCURACY / PEAK_RSS_MB lines -> {kind: {name: value}}."""
    out = {"ms": {}, "checksum": {}, "loss": {}, "accuracy": {}, "rss": {}}
    for line in stdout.splitlines():
        p = line.split()
        if not p:
            continue
        if p[0] == "RESULT" and len(p) == 3:
            out["ms"][p[1]] = float(p[2])
        elif p[0] == "CHECKSUM" and len(p) == 3:
            out["checksum"][p[1]] = float(p[2])
        elif p[0] == "CHECKSUM" and len(p) == 2:  # w1_rnn: the interpreter's
            out["checksum"][base] = float(p[1])
        elif p[0] == "LOSS" and len(p) == 4:
            out["loss"][p[1]] = (float(p[2]), float(p[3]))
        elif p[0] == "ACCURACY" and len(p) == 3:
            out["accuracy"][p[1]] = float(p[2])
        elif p[0] == "PEAK_RSS_MB" and len(p) == 4:
            out["rss"][p[1]] = (float(p[2]), float(p[3]))
    return out


def run(cmd, env, what):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        err = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        sys.exit(f"{what} failed: {err[-1] if err else 'exit code ' + str(proc.returncode)}")
    for line in proc.stdout.splitlines():
        if line.startswith(("SKIP", "FAILED")):
            print(f"  {what}: {line}")
    return proc.stdout


def measure(name, spec, args, env):
    """Alternating skiff/peer rounds; returns (rows [(label, ms, ratio, check)], skiff ms)."""
    reps = str(max(5, spec.get("reps", args.reps)))
    rounds = min(args.rounds, spec.get("max_rounds", args.rounds))
    base = spec["base"]
    times, checks = {}, {}
    for r in range(rounds):
        print(f"  {name}: round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        mine = run([os.path.join(args.build, "bench", spec["binary"]), reps], env, spec["binary"])
        theirs = run([sys.executable] + spec["peers"] + ["--reps", reps], env, f"{name} peers")
        for out in (parse(mine, base), parse(theirs, base)):
            for key, ms in out["ms"].items():
                times.setdefault(key, []).append(ms)
            for key, value in out[spec["check"]].items():
                checks[key] = value
    rows = []
    base_runs = times.get(base)
    if not base_runs:
        sys.exit(f"{name}: skiff printed no RESULT line")
    for key, label in spec["rows"]:
        runs = times.get(key)
        if not runs:
            rows.append((label, None, None, checks.get(key)))
            continue
        # The ratio is taken within each round (same load), then the median over rounds.
        ratio = statistics.median(t / m for t, m in zip(runs, base_runs))
        rows.append((label, statistics.median(runs), ratio, checks.get(key)))
    warn_on_checks(name, spec, checks)
    return rows


def warn_on_checks(name, spec, checks):
    """Prints a warning when a peer's check value is far from skiff's."""
    base = spec["base"]
    if base not in checks:
        return
    mine = checks[base]
    for key, value in checks.items():
        if key == base:
            continue
        if spec["check"] == "loss":
            off = max(abs(a - b) / max(1e-6, abs(b)) for a, b in zip(value, mine))
            bad = off > 1e-3
        elif spec["check"] == "accuracy":
            off, bad = abs(value - mine), abs(value - mine) > 0.02
        else:
            off = abs(value - mine) / max(1e-6, abs(mine))
            bad = off > 1e-4
        if bad:
            print(f"  warning: {name} {key} check differs from skiff's by {off:.2e}")


def format_check(kind, value):
    if value is None:
        return ""
    if kind == "loss":
        return f"loss {value[0]:.5f} -> {value[1]:.5f}"
    if kind == "accuracy":
        return f"test accuracy {value:.4f}"
    return f"checksum {value:.6g}"


def memory_table(args, env):
    """Peak RSS of W3 training (50 steps), each framework in its own process."""
    mine = run([os.path.join(args.build, "bench", "w3_cnn"), "--memory"], env, "w3_cnn --memory")
    theirs = run([sys.executable, PEERS_PY, "--workload", "w3", "--memory"], env,
                 "w3 peers --memory")
    rss = {**parse(mine, "skiff")["rss"], **parse(theirs, "skiff")["rss"]}
    print()
    print("Peak resident set size, W3 training (50 steps), one process each (MiB)")
    print(f"{'':28} {'peak':>9} {'before model':>13} {'growth':>9}")
    for key, label in (("skiff", "skiff"), ("torch", "PyTorch eager"),
                       ("paddle", "Paddle eager")):
        if key not in rss:
            print(f"{label:28} {'-':>9}")
            continue
        peak, before = rss[key]
        print(f"{label:28} {peak:9.1f} {before:13.1f} {peak - before:9.1f}")


# The environment of each --max-isa: what caps skiff, oneDNN, MKL and PyTorch's kernels.
MAX_ISA_ENV = {
    "avx2": {"SKIFF_MAX_CPU_ISA": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
             "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ATEN_CPU_CAPABILITY": "avx2"},
    "avx512": {"SKIFF_MAX_CPU_ISA": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
               "MKL_ENABLE_INSTRUCTIONS": "AVX512", "ATEN_CPU_CAPABILITY": "avx512"},
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"),
                    help="the CMake build directory holding bench/<binaries>")
    ap.add_argument("--workloads", default="w1,w2,w3,w5,w7,w8",
                    help="comma-separated list among " + ",".join(WORKLOADS))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating skiff/peer rounds (median over rounds; w8: 1)")
    ap.add_argument("--memory", action="store_true",
                    help="also measure the peak RSS of W3 training in each framework")
    ap.add_argument("--max-isa", choices=sorted(MAX_ISA_ENV),
                    help="cap every framework at this instruction set (see above)")
    ap.add_argument("--no-record", action="store_true",
                    help="do not write the run's record into bench/results (records.py)")
    args = ap.parse_args()
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    for name in names:
        if name not in WORKLOADS:
            sys.exit(f"unknown workload '{name}' (known: {', '.join(WORKLOADS)})")

    env = dict(os.environ, OMP_NUM_THREADS="2", **MAX_ISA_ENV.get(args.max_isa, {}))
    load_before = os.getloadavg()[0]
    results = [(name, measure(name, WORKLOADS[name], args, env)) for name in names]

    print()
    print(f"2 threads; each time is the median over rounds (up to {args.rounds}; w8: 1) of a "
          f"run's median of >= {max(5, args.reps)} reps (w8: 5 epochs);")
    print("ratio = peer time / skiff time, per round, median (above 1: skiff is faster)")
    if args.max_isa:
        print(f"capped at {args.max_isa}: " +
              " ".join(f"{k}={v}" for k, v in MAX_ISA_ENV[args.max_isa].items()))
    print(f"load average: {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on "
          f"{os.cpu_count()} CPUs")
    print(f"{'workload':36} {'implementation':34} {'time':>10} {'unit':<13} {'ratio':>7}  check")
    for name, rows in results:
        spec = WORKLOADS[name]
        for i, (label, ms, ratio, check) in enumerate(rows):
            head = spec["title"] if i == 0 else ""
            if ms is None:
                print(f"{head:36} {label:34} {'-':>10} {'':<13} {'-':>7}  (not run)")
                continue
            print(f"{head:36} {label:34} {ms:10.3f} {spec['unit']:<13} {ratio:7.2f}  "
                  f"{format_check(spec['check'], check)}")
    if args.memory:
        memory_table(args, env)
    if not args.no_record:
        rows = [{"workload": WORKLOADS[name]["title"], "implementation": label, "time": ms,
                 "unit": WORKLOADS[name]["unit"], "ratio": ratio}
                for name, result in results for label, ms, ratio, _ in result if ms is not None]
        records.report("compare" + (f"_{args.max_isa}" if args.max_isa else ""), rows,
                       [load_before, os.getloadavg()[0]])


if __name__ == "__main__":
    main()
