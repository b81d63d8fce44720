"""skiff board's reader and server against TensorBoard's loader on one run holding one
scalar tag of --points points (default 1,000,000), written through skiff._C.EventLogWriter.
Each side runs in its own process and reports its resident set size.

  skiff reader   skiff._C.RunLog(run).reload(), then .scalars(tag)
  skiff server   python -m skiff.board on a free port: the first GET /api/scalars (which
                 reads the file, then downsamples to 1000 points), then a second one
  TensorBoard    EventAccumulator(run, size_guidance={scalars: 0}).Reload(), then .Scalars(tag)

    .venv/bin/python bench/board_server.py [--build build] [--points 1000000]

Times are wall-clock seconds on this machine; run it on a quiet machine and compare the
columns side by side.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "train/loss"

# Runs in a child process: prints one JSON line of timings and memory.
READER_SKIFF = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from skiff import _C
from bench_rss import rss_mib
start = time.perf_counter()
log = _C.RunLog(sys.argv[2])
events = log.reload()
loaded = time.perf_counter()
steps, walls, values = log.scalars(sys.argv[3])
done = time.perf_counter()
print(json.dumps({"load_s": loaded - start, "query_s": done - loaded, "points": len(steps),
                  "events": events, **rss_mib()}))
"""

READER_TENSORBOARD = """
import json, sys, time
from bench_rss import rss_mib
from tensorboard.backend.event_processing import event_accumulator as ea
start = time.perf_counter()
acc = ea.EventAccumulator(sys.argv[2], size_guidance={ea.SCALARS: 0})
acc.Reload()
loaded = time.perf_counter()
points = acc.Scalars(sys.argv[3])
done = time.perf_counter()
print(json.dumps({"load_s": loaded - start, "query_s": done - loaded, "points": len(points),
                  **rss_mib()}))
"""

RSS_MODULE = """
def rss_mib(pid="self"):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key.lower() + "_mib"] = int(value.split()[0]) / 1024.0
    return out
"""


def write_log(python_dir, folder, points):
    sys.path.insert(0, python_dir)
    import numpy as np
    from skiff import _C
    values = (np.sin(np.arange(points) / 500.0) +
              np.random.default_rng(0).normal(0, 0.1, points)).tolist()
    start = time.perf_counter()
    writer = _C.EventLogWriter(folder, max_queue=1 << 20)
    for step, value in enumerate(values):
        writer.add_scalar(TAG, value, step, 1.7e9 + step)
    writer.close()
    return time.perf_counter() - start, writer.dropped, os.path.getsize(writer.path)


def run_child(code, python_dir, folder, module_dir):
    out = subprocess.run([sys.executable, "-c", code, python_dir, folder, TAG],
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=module_dir))
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure_server(python_dir, folder, module_dir):
    sys.path.insert(0, module_dir)
    from bench_rss import rss_mib
    env = dict(os.environ, PYTHONPATH=python_dir)
    proc = subprocess.Popen([sys.executable, "-m", "skiff.board", "--logdir", folder,
                             "--port", "0"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        url = line[line.index("http://"):].split()[0]
        idle = rss_mib(proc.pid)
        query = f"{url}api/scalars?run=.&tag={urllib.parse.quote(TAG)}"
        times = []
        for _ in range(2):
            start = time.perf_counter()
            with urllib.request.urlopen(query, timeout=120) as r:
                answer = json.loads(r.read())
            times.append(time.perf_counter() - start)
        return {"first_s": times[0], "second_s": times[1], "points": answer["total"],
                "returned": len(answer["step"]), "idle_rss_mib": idle["vmrss_mib"],
                **rss_mib(proc.pid)}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--points", type=int, default=1_000_000)
    args = parser.parse_args()
    python_dir = os.path.abspath(os.path.join(args.build, "python"))
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as module_dir:
        with open(os.path.join(module_dir, "bench_rss.py"), "w") as f:
            f.write(RSS_MODULE)
        write_s, dropped, size = write_log(python_dir, folder, args.points)
        print(f"wrote {args.points} points ({size / 2**20:.1f} MiB) in {write_s:.2f} s, "
              f"{dropped} dropped")
        skiff = run_child(READER_SKIFF, python_dir, folder, module_dir)
        tb = run_child(READER_TENSORBOARD, python_dir, folder, module_dir)
        server = measure_server(python_dir, folder, module_dir)
    print(f"{'':28}{'load s':>9}{'query s':>9}{'points':>10}{'RSS MiB':>9}{'peak MiB':>10}")
    for name, r in (("skiff RunLog", skiff), ("TensorBoard EventAccumulator", tb)):
        print(f"{name:28}{r['load_s']:9.3f}{r['query_s']:9.3f}{r['points']:10d}"
              f"{r['vmrss_mib']:9.1f}{r['vmhwm_mib']:10.1f}")
    print(f"{'skiff board server':28}{server['first_s']:9.3f}{server['second_s']:9.3f}"
          f"{server['points']:10d}{server['vmrss_mib']:9.1f}{server['vmhwm_mib']:10.1f}")
    print(f"  server: load s = first GET /api/scalars (reads the file, returns "
          f"{server['returned']} points), query s = second GET; idle RSS "
          f"{server['idle_rss_mib']:.1f} MiB")
    print(f"  load ratio TensorBoard / skiff RunLog: {tb['load_s'] / skiff['load_s']:.1f}x")


if __name__ == "__main__":
    main()
