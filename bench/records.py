"""Benchmark records: a run of bench/compare.py or bench/py/run.py kept as JSON in
bench/results/, with what it ran on (CPU model and kind, instruction-set flags, cores,
versions, load) and every row's time and ratio; and the comparison of a new run with the
last record of the same tool on the same kind of CPU, so a change's before and after stay
side by side and a regression shows.

A row's ratio is a peer's time over skiff's measured in the same round (compare.py) or a
row's time over skiff's Python row (run.py): above 1, skiff is faster. A ratio that falls
by more than REGRESSION (relative) against the last record is flagged. Times are kept for
reference only: on shared machines they drift, ratios measured side by side do not.
"""
import datetime
import glob
import importlib.metadata
import json
import os
import platform
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
REGRESSION = 0.10

# The flags that change which kernels run (skiff's dispatch and the peers' libraries).
_ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
              "avx_vnni", "amx_tile", "amx_int8", "amx_bf16")
_PACKAGES = ("torch", "paddlepaddle", "numpy", "onnxruntime")


def _cpuinfo():
    model, flags = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown":
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return model, flags


def machine():
    """What a run ran on: CPU model, its kind (the model and the kernel-relevant flags:
    records compare only within a kind), cores, kernel, Python and package versions."""
    model, flags = _cpuinfo()
    isa = [f for f in _ISA_FLAGS if f in flags]
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return {"cpu": model, "cpu_kind": f"{model} [{' '.join(isa)}]", "isa_flags": isa,
            "cores": len(os.sched_getaffinity(0)), "kernel": platform.release(),
            "python": platform.python_version(), "versions": versions}


def _commit():
    try:
        done = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", HERE, "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return done.stdout.strip() + ("+changes" if dirty else "") if done.returncode == 0 \
            else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def write(tool, rows, loads, folder=RESULTS):
    """Writes the record of a run of ``tool`` ("compare" or "py_run"): ``rows`` a list of
    dicts {workload, implementation, time, unit, ratio} (ratio None where not taken),
    ``loads`` the load averages it ran at. Returns (the record, its path)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    record = {"tool": tool, "time": now.isoformat(timespec="seconds"), "commit": _commit(),
              "machine": machine(), "load": {"min": min(loads), "max": max(loads)},
              "rows": rows}
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{tool}-{now.strftime('%Y%m%dT%H%M%S.%fZ')}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    return record, path


def last_record(tool, cpu_kind, folder=RESULTS, before=None):
    """The newest record of ``tool`` on ``cpu_kind`` (other than the file ``before``)."""
    newest = None
    for path in sorted(glob.glob(os.path.join(folder, f"{tool}-*.json"))):
        if before is not None and os.path.abspath(path) == os.path.abspath(before):
            continue
        try:
            with open(path) as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if record.get("machine", {}).get("cpu_kind") == cpu_kind:
            newest = (record, path)
    return newest


def changes(old, new, threshold=REGRESSION):
    """[(workload, implementation, old ratio, new ratio, regressed)] for the rows both
    records have with a ratio."""
    before = {(r["workload"], r["implementation"]): r["ratio"] for r in old["rows"]
              if r.get("ratio") is not None}
    out = []
    for r in new["rows"]:
        key = (r["workload"], r["implementation"])
        if r.get("ratio") is None or key not in before:
            continue
        was, now = before[key], r["ratio"]
        out.append((*key, was, now, now < was * (1 - threshold)))
    return out


def report(tool, rows, loads, folder=RESULTS):
    """Writes the record and prints how its ratios moved since the last record of the
    same tool on the same kind of CPU."""
    record, path = write(tool, rows, loads, folder)
    print(f"\nrecord: {os.path.relpath(path)} ({record['machine']['cpu_kind']})")
    last = last_record(tool, record["machine"]["cpu_kind"], folder, before=path)
    if last is None:
        print("  no earlier record of this tool on this kind of CPU to compare with")
        return record
    old, old_path = last
    print(f"  against {os.path.relpath(old_path)} ({old['commit']}, {old['time']}):")
    moved = changes(old, record)
    for workload, implementation, was, now, regressed in moved:
        flag = "  REGRESSION" if regressed else ""
        print(f"  {workload[:30]:30} {implementation[:34]:34} {was:6.2f} -> {now:6.2f}{flag}")
    if not moved:
        print("  no row in common")
    return record
