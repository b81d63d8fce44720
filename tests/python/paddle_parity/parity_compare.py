"""Compare skiff's run of the docstring examples with Paddle's reference, and score it.

    python tests/python/paddle_parity/parity_compare.py            # run skiff, print scores
    python tests/python/paddle_parity/parity_compare.py --write-known   # rewrite the list

Each example gets one outcome: `agree`; `differ` (what differs); `error` (skiff raised:
the error); `paddle-error` (Paddle raised too: not counted); `excluded` (needs an
accelerator, several processes, a download or files outside a temp dir: not counted).
A module's score is agree / (agree + differ + error).
"""

import argparse
import collections
import gzip
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
REFERENCE = HERE / "paddle_reference.json.gz"
KNOWN = HERE / "known_differences.txt"
RTOL, ATOL = 1e-3, 1e-5


def _close(a, b):
    if isinstance(a, list) or isinstance(b, list):  # complex values: [re, im]
        a = a if isinstance(a, list) else [a, 0.0]
        b = b if isinstance(b, list) else [b, 0.0]
        return all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if a is None or b is None:
        return a is b
    return bool(np.isclose(b, a, rtol=RTOL, atol=ATOL, equal_nan=True))


def _value_difference(name, want, got):
    """What differs between Paddle's record of a value and skiff's, or None."""
    if got is None:
        return f"{name}: not a Tensor/value in skiff"
    if "scalar" in want:
        if "scalar" in got and (want.get("random") or _close(want["scalar"], got["scalar"])):
            return None
        return f"{name}: {got.get('scalar', got.get('shape'))} != {want['scalar']}"
    if "scalar" in got:
        return f"{name}: a scalar in skiff, a Tensor in Paddle"
    if got["shape"] != want["shape"]:
        return f"{name}: shape {got['shape']} != {want['shape']}"
    if got["dtype"] != want["dtype"]:
        return f"{name}: dtype {got['dtype']} != {want['dtype']}"
    if want.get("random"):
        return None
    for i, (a, b) in enumerate(zip(want["values"], got["values"])):
        if not _close(a, b):
            return f"{name}: value [{i}] {b} != {a}"
    slack = ATOL * want["n"] + RTOL * want["abs"]
    if want["n"] > len(want["values"]) and not (
            np.all(np.abs(np.subtract(want["sum"], got["sum"])) <= slack)
            and abs(want["abs"] - got["abs"]) <= slack):
        return f"{name}: sum {got['sum']} != {want['sum']}"
    return None


def _stdout_difference(want, got, random):
    if random or len(want) != len(got):
        if len(want) != len(got):
            return f"printed {len(got)} tokens, Paddle {len(want)}"
        return None
    for i, (a, b) in enumerate(zip(want, got)):
        same = _close(a, b) if isinstance(a, float) and isinstance(b, float) else a == b
        if not same:
            return f"printed token {i}: {b} != {a}"
    return None


def outcome(example, got):
    """(kind, detail) of one example: kind is agree, differ, error, paddle-error or excluded."""
    if example.get("excluded"):
        return "excluded", example["excluded"]
    want = example.get("paddle")
    if want is None or "error" in want:
        return "paddle-error", (want or {}).get("error", "not run")
    if got is None:
        return "error", "not run"
    if "error" in got:
        return "error", got["error"]
    for name, value in want["values"].items():
        difference = _value_difference(name, value, got["values"].get(name))
        if difference:
            return "differ", difference
    difference = _stdout_difference(want["stdout"], got["stdout"], want["stdout_random"])
    if difference:
        return "differ", difference
    return "agree", ""


def load_reference():
    with gzip.open(REFERENCE, "rt") as f:
        return json.load(f)["examples"]


def load_known():
    """{id: reason} of the examples expected not to agree."""
    known = {}
    if KNOWN.exists():
        for line in KNOWN.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                ident, _, reason = line.partition(" ")
                known[ident] = reason.strip()
    return known


def write_known(outcomes):
    lines = ["# Paddle docstring examples that do not agree under skiff today, with why.",
             "# This list may only shrink: tests/python/paddle_parity (docs/paddle_parity.md).",
             ""]
    for ident, (kind, detail) in sorted(outcomes.items()):
        if kind in ("differ", "error"):
            # (an ImportError names the module's file: where it lies is not the reason)
            detail = re.sub(r" \(/[^)]*\)", "", " ".join(detail.split()))
            lines.append(f"{ident} {kind}: {detail[:160]}")
    KNOWN.write_text("\n".join(lines) + "\n")


def run_skiff(examples, timeout=15):
    """{id: record}: the examples run under skiff, in a child Python (the name `paddle`
    is bound to skiff there only)."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = os.path.join(tmp, "examples.json"), os.path.join(tmp, "skiff.json")
        with open(source, "w") as f:
            json.dump([e for e in examples if not e.get("excluded")
                       and "error" not in (e.get("paddle") or {"error": ""})], f)
        env = dict(os.environ)
        # OpenMP threads sleep between regions: the suite shares the cores with other tests.
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        spec = importlib.util.find_spec("skiff")  # the child imports the same skiff
        if spec is not None and spec.origin:
            package_dir = str(pathlib.Path(spec.origin).parent.parent)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_dir,
                                                              env.get("PYTHONPATH")]))
        subprocess.run([sys.executable, str(HERE / "parity_runner.py"), "--backend", "skiff",
                        "--examples", source, "--out", out, "--timeout", str(timeout)],
                       check=True, stderr=subprocess.DEVNULL, env=env)
        with open(out) as f:
            return json.load(f)


def compare(examples, results):
    return {e["id"]: outcome(e, results.get(e["id"])) for e in examples}


def scores(examples, outcomes):
    """[(module, agree, total)] in the reference's order, and the overall line last."""
    counts = collections.OrderedDict()
    for example in examples:
        kind, _ = outcomes[example["id"]]
        agree, total = counts.get(example["module"], (0, 0))
        if kind in ("agree", "differ", "error"):
            counts[example["module"]] = (agree + (kind == "agree"), total + 1)
    rows = [(module, agree, total) for module, (agree, total) in counts.items()]
    rows.append(("overall", sum(r[1] for r in rows), sum(r[2] for r in rows)))
    return rows


def report(examples, outcomes):
    lines = [f"{'module':<26} {'agree':>6} {'total':>6} {'%':>6}"]
    for module, agree, total in scores(examples, outcomes):
        lines.append(f"{module:<26} {agree:>6} {total:>6} {100 * agree / max(total, 1):>5.1f}%")
    kinds = collections.Counter(kind for kind, _ in outcomes.values())
    kinds.update(f"excluded:{d}" for k, d in outcomes.values() if k == "excluded")
    lines.append("outcomes: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", help="skiff's results (JSON) instead of running skiff")
    parser.add_argument("--write-known", action="store_true",
                        help="rewrite known_differences.txt with today's failures")
    parser.add_argument("--show", default="", help="print the outcome of ids containing this")
    parser.add_argument("--only", default="",
                        help="run and score only the examples whose ids contain this")
    args = parser.parse_args()
    if args.only and args.write_known:
        parser.error("--write-known rewrites the whole list: it cannot be used with --only")
    examples = [e for e in load_reference() if args.only in e["id"]]
    if args.results:
        with open(args.results) as f:
            results = json.load(f)
    else:
        results = run_skiff(examples)
    outcomes = compare(examples, results)
    print(report(examples, outcomes))
    if args.show:
        for ident, (kind, detail) in outcomes.items():
            if args.show in ident:
                print(f"{ident}: {kind} {detail}")
    if args.write_known:
        write_known(outcomes)


if __name__ == "__main__":
    main()
