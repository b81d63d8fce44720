"""Pollux's (OSDI 2021) simulated workloads from its artifact's data folder: 16 nodes of 4
GPUs; each job trains until its application's final statistical progress (the end of its
validation curve) at the batch size its owner chose; its iteration time per placement and
local batch size comes from the measured step times (docs/simulator.md)."""
import bisect
import csv
import functools
import json
import math
import os

from ..autoscaler.state import Resources
from .workload import JobSpec, NodeSpec

__all__ = ["Application", "application", "workload", "published", "cluster", "SKIFF_CONFIG"]

NODES, GPUS_PER_NODE = 16, 4
SKIFF_CONFIG = {"max_load": 1.0, "thresholds": (3600.0, 36000.0), "suspend": True}
"""The skiff policy's knobs here: GPU-seconds queues of one and ten GPU-hours (2D-LAS), and
whole elastic jobs of later queues suspended for queued ones (the simulator requeues them)."""
GPU = Resources(cpu=1, gpu=1)          # a worker: one GPU and its share of the host
NODE = Resources(cpu=GPUS_PER_NODE, gpu=GPUS_PER_NODE)


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _interpolate(points, x):
    """Linear in ``points`` [(x, y)] sorted by x; below the first x its y (a step is never
    faster than at the smallest measured batch); past the last, the last two extended."""
    xs = [p[0] for p in points]
    i = bisect.bisect_left(xs, x)
    if i == 0:
        return points[0][1]
    if i == len(points):
        if len(points) == 1:
            return points[-1][1]
        (x0, y0), (x1, y1) = points[-2], points[-1]
    else:
        (x0, y0), (x1, y1) = points[i - 1], points[i]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


class Application:
    """One application's measurements: step time per placement and local batch size, and
    the iterations it needs to reach its target at each total batch size."""

    def __init__(self, folder):
        self.placements, self.scalability = {}, {}
        for r in _rows(os.path.join(folder, "placements.csv")):
            self.placements.setdefault(r["placement"], []).append(
                (float(r["local_bsz"]), float(r["step_time"])))
        for r in _rows(os.path.join(folder, "scalability.csv")):
            key = (int(r["num_nodes"]), int(r["num_replicas"]))
            self.scalability.setdefault(key, []).append(
                (float(r["local_bsz"]), float(r["step_time"])))
        for table in (self.placements, self.scalability):
            for points in table.values():
                points.sort()
        single = self.placements["1"]
        self.min_local, self.max_local = single[0][0], single[-1][0]
        self.target = {}
        for name in os.listdir(folder):
            if name.startswith("validation-") and name.endswith(".csv"):
                rows = _rows(os.path.join(folder, name))
                self.target[int(name[11:-4])] = float(rows[-1]["iteration"])

    def iterations(self, batch):
        """Iterations to the target at total batch size ``batch`` (the validation curve's
        last iteration; between measured sizes, interpolated in log(batch))."""
        if batch in self.target:
            return self.target[batch]
        points = sorted((math.log(b), math.log(it)) for b, it in self.target.items())
        return math.exp(_interpolate(points, math.log(batch)))

    def step_time(self, counts, local):
        """Seconds per iteration with ``counts`` GPUs on each node used and ``local``
        samples per GPU (step_time already holds the synchronisation)."""
        counts = sorted(c for c in counts if c)
        key = "".join(str(c) for c in counts)
        if key in self.placements:
            return _interpolate(self.placements[key], local)
        nodes, replicas = len(counts), sum(counts)
        sizes = sorted({n for n, _ in self.scalability})
        n = next((s for s in sizes if s >= nodes), sizes[-1])
        r = min((r for s, r in self.scalability if s == n), key=lambda r: (abs(r - replicas), r))
        return _interpolate(self.scalability[(n, r)], local)


@functools.lru_cache(maxsize=None)
def application(data, name):
    """The ``Application`` ``name`` read from ``data``/traces/``name``."""
    return Application(os.path.join(data, "traces", name))


def _packed(workers):
    return [GPUS_PER_NODE] * (workers // GPUS_PER_NODE) + [workers % GPUS_PER_NODE]


def cluster():
    """16 nodes of 4 GPUs."""
    return [NodeSpec(f"node-{i:02d}", NODE) for i in range(NODES)]


def _job(data, row, elastic):
    app = application(data, row["application"])
    batch, asked = int(row["batch_size"]), int(row["num_replicas"])

    def rate(workers, placement):
        counts = placement.values() if placement else _packed(workers)
        return 1.0 / app.step_time(list(counts), batch / workers)

    least = max(1, math.ceil(batch / app.max_local - 1e-9))
    if elastic:
        most = min(NODES * GPUS_PER_NODE, max(4 * asked, least),
                   max(least, int(batch // app.min_local)))
        lo, hi = least, most
    else:
        lo = hi = max(asked, least)
    table = {w: batch * rate(w, None) for w in range(lo, hi + 1)}
    return JobSpec(row["name"], float(row["time"]), app.iterations(batch), lo, hi, GPU, rate,
                   throughput=table, elastic=elastic)


def workload(data, load="1.0", number=1, elastic=True, limit=None):
    """(nodes, jobs) of workload ``number`` at ``load`` (0.5, 1.0, 1.5, 2.0)."""
    folder = "workloads" if float(load) == 1.0 else f"workloads-{float(load):.1f}"
    rows = _rows(os.path.join(data, folder, f"workload-{number}.csv"))
    rows.sort(key=lambda r: (float(r["time"]), r["name"]))
    if limit:
        rows = rows[:limit]
    return cluster(), [_job(data, r, elastic) for r in rows]


def published(data, load="1.0"):
    """The published mean JCT over the 8 workloads at ``load``: {system: seconds}."""
    found = {}
    for system in ("pollux", "tiresias", "optimus"):
        path = os.path.join(data, "results-jobload", f"{system}-{float(load):.1f}",
                            "summary.json")
        if os.path.exists(path):
            with open(path) as f:
                found[system] = round(json.load(f)["mean"], 1)
    return found
