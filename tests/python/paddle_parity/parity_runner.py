"""Run docstring examples under one backend and record what each leaves behind.

    python parity_runner.py --backend skiff --examples paddle_reference.json.gz --out skiff.json

--backend paddle runs them under PaddlePaddle; --backend skiff binds the name `paddle` (and
every `paddle.X` submodule) to skiff, so the examples' own `import paddle` lines get skiff.
Each example runs in a child forked from a process that has imported the backend once: a
fresh namespace, a fresh temp dir as its working directory, the same seeds (paddle.seed,
numpy, random), stdin closed and stderr dropped, a time limit. The record per example:
the error (type and message) if it raised, the printed output as tokens (numbers, bools,
dtype names) and a summary of every Tensor, ndarray, scalar or list of Tensors the
namespace binds at the end (shape, dtype, the first values, the sum and the sum of |x|).
"""

import argparse
import importlib
import importlib.abc
import importlib.machinery
import io
import gzip
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

SEED = 2024
SUM_CHUNK = 1 << 22  # values summed at a time
MAX_VALUES = 32  # values kept per Tensor
MAX_TOKENS = 400  # printed tokens kept per example


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `paddle.X` as the already-imported module `skiff.X`."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("paddle."):
            return None
        try:
            importlib.import_module("skiff." + fullname[len("paddle."):])
        except ImportError:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return sys.modules["skiff." + spec.name[len("paddle."):]]

    def exec_module(self, module):
        pass


def import_backend(backend):
    """The module that `import paddle` gives the examples."""
    if backend == "paddle":
        return importlib.import_module("paddle")
    module = importlib.import_module("skiff")
    sys.modules["paddle"] = module
    for name in list(sys.modules):
        if name.startswith("skiff."):
            sys.modules.setdefault("paddle." + name[len("skiff."):], sys.modules[name])
    sys.meta_path.insert(0, _Alias())
    return module


# ---- what an example leaves: printed tokens and a summary of its values ------------------

_HEADER = re.compile(r"place=[A-Za-z]*\([^)]*\),?\s*|stop_gradient=(?:True|False),?\s*")
_TOKEN = re.compile(
    r"\b(?:b?float\d+|u?int\d+|complex\d+|bool)\b|\bTrue\b|\bFalse\b|[-+]?\b(?:nan|inf)\b|"
    r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


def tokens(text):
    """The printed output as a list: numbers as floats, everything else as a string."""
    out = []
    for token in _TOKEN.findall(_HEADER.sub("", text)):
        try:
            out.append(float(token))
        except ValueError:
            out.append(token)
    return out[:MAX_TOKENS]


def _round(x):
    if isinstance(x, complex):
        return [_round(x.real), _round(x.imag)]
    x = float(x)
    return x if not math.isfinite(x) or x == 0 else float(f"{x:.6g}")


def _dtype(dtype):
    return str(dtype).split(".")[-1].lower()


def summarize(value):
    """A small JSON-able record of a Tensor / ndarray / scalar, or None for other values."""
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        return {"scalar": _round(value) if not isinstance(value, bool) else value}
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        array, dtype = value, _dtype(value.dtype)
    elif callable(getattr(value, "numpy", None)) and hasattr(value, "shape") \
            and hasattr(value, "dtype") and not isinstance(value, type):
        try:
            if callable(getattr(value, "is_sparse", None)) and value.is_sparse():
                value = value.to_dense()  # Paddle's numpy() of a sparse Tensor crashes
            array, dtype = np.asarray(value.numpy()), _dtype(value.dtype)
        except Exception:  # a static-graph Variable: no value
            return None
    else:
        return None
    if array.dtype == object:
        return None
    flat = array.reshape(-1)
    if flat.dtype.kind not in "biufc":
        try:
            flat = flat.astype(np.float64)
        except (TypeError, ValueError):
            return None
    wide = np.complex128 if flat.dtype.kind == "c" else np.float64
    total, magnitude = wide(0), 0.0
    with np.errstate(all="ignore"):
        # In chunks: a result of 10^8 values is summed without copies of its size.
        for start in range(0, flat.size, SUM_CHUNK):
            numbers = flat[start:start + SUM_CHUNK].astype(wide)
            finite = numbers[np.isfinite(numbers)]
            total += finite.sum()
            magnitude += float(np.abs(finite).sum())
        head = flat[:MAX_VALUES].astype(wide)
        return {"shape": list(array.shape), "dtype": dtype,
                "values": [_round(x) for x in head.tolist()],
                "sum": _round(complex(total) if flat.dtype.kind == "c" else float(total)),
                "abs": _round(magnitude), "n": int(flat.size)}


def namespace_values(namespace):
    """{name: summary} for the values an example's namespace binds at its end."""
    out = {}
    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        if isinstance(value, (list, tuple)) and 0 < len(value) <= 16:
            for i, item in enumerate(value):
                record = summarize(item) if not isinstance(item, (list, tuple)) else None
                if record is not None and "scalar" not in record:
                    out[f"{name}[{i}]"] = record
            continue
        record = summarize(value)
        if record is not None:
            out[name] = record
    return out


# ---- one example, in a forked child ---------------------------------------------------

class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout("the example ran past its time limit")


def _run_child(backend_module, code, seed_offset, timeout, result_path):
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 2)
    os.chdir(tempfile.mkdtemp(prefix="parity-"))
    if seed_offset:  # the second reference run: every seed the example sets moves too
        seed = backend_module.seed
        backend_module.seed = lambda s: seed(s + seed_offset)
    backend_module.seed(SEED)
    np.random.seed(SEED)
    random.seed(SEED)
    printed = io.StringIO()
    sys.stdout = printed
    namespace = {"__name__": "__main__"}
    record = {}
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(timeout)
    try:
        exec(compile(code, "<example>", "exec"), namespace)
    except BaseException as error:  # noqa: B036 - the example's error is the result
        message = str(error).strip().splitlines()
        record["error"] = f"{type(error).__name__}: {message[0][:200] if message else ''}"
    signal.alarm(0)
    sys.stdout = sys.__stdout__
    record["stdout"] = tokens(printed.getvalue())
    try:
        record["values"] = namespace_values(namespace)
    except Exception as error:
        record["values"] = {}
        record.setdefault("error", f"{type(error).__name__}: reading the results: {error}")
    with open(result_path, "w") as f:
        json.dump(record, f)


def run_example(backend_module, code, seed_offset=0, timeout=5, fresh=False):
    """The record of one example, run in a forked child that is killed past the time limit;
    a child that crashes is run again in a new process (unless `fresh`: this is one)."""
    fd, result_path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            _run_child(backend_module, code, seed_offset, timeout, result_path)
        finally:
            os._exit(0)
    deadline = time.monotonic() + timeout + 1
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = None
            break
        time.sleep(0.002)
    try:
        with open(result_path) as f:
            return json.load(f)
    except (OSError, ValueError):
        if status is not None and not fresh:  # Paddle's sparse kernels crash in a fork
            return run_example_fresh(backend_module.__name__, code, seed_offset, timeout)
        why = "killed past the time limit" if status is None else f"wait status {status}"
        return {"error": f"Crash: the example's process ended without a result ({why})",
                "stdout": [], "values": {}}
    finally:
        os.unlink(result_path)


def run_example_fresh(backend, code, seed_offset=0, timeout=5):
    """The record of one example, run in a new Python process rather than a fork."""
    with tempfile.TemporaryDirectory() as tmp:
        source, out = os.path.join(tmp, "example.py"), os.path.join(tmp, "result.json")
        with open(source, "w") as f:
            f.write(code)
        try:
            subprocess.run([sys.executable, __file__, "--backend", backend, "--one", source,
                            "--out", out, "--seed-offset", str(seed_offset),
                            "--timeout", str(timeout)], timeout=timeout + 30,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                return json.load(f)
        except (OSError, ValueError, subprocess.TimeoutExpired) as error:
            return {"error": f"Crash: the example's process ended without a result ({error})",
                    "stdout": [], "values": {}}


def _timed_out(record):
    error = record.get("error", "")
    return error.startswith("_Timeout") or "killed past the time limit" in error


def run_all(backend, examples, seed_offset=0, timeout=5, progress=False):
    """{id: record} for the examples that are not excluded. An example that runs past the
    limit is run once more with four times the limit after the others: the suite shares
    the machine with other tests, and a slow moment is not a wrong result."""
    module = import_backend(backend)
    results = {}
    for i, example in enumerate(examples):
        if example.get("excluded"):
            continue
        results[example["id"]] = run_example(module, example["code"], seed_offset, timeout)
        if progress and i % 100 == 0:
            print(f"{i}/{len(examples)}", file=sys.stderr, flush=True)
    for example in examples:
        if _timed_out(results.get(example["id"], {})):
            results[example["id"]] = run_example(module, example["code"], seed_offset,
                                                 4 * timeout)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["paddle", "skiff"], required=True)
    parser.add_argument("--one", help="run the code in this file, in this process")
    parser.add_argument("--examples",
                        help="JSON: a list of examples, or the reference ({'examples': [...]})")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed-offset", type=int, default=0)
    parser.add_argument("--timeout", type=int, default=5, help="seconds per example")
    parser.add_argument("--only", default="", help="run only ids containing this text")
    args = parser.parse_args()
    if args.one:
        with open(args.one) as f:
            code = f.read()
        _run_child(import_backend(args.backend), code, args.seed_offset, args.timeout, args.out)
        return
    with (gzip.open if args.examples.endswith(".gz") else open)(args.examples, "rt") as f:
        examples = json.load(f)
    if isinstance(examples, dict):
        examples = examples["examples"]
    examples = [e for e in examples if args.only in e["id"]]
    results = run_all(args.backend, examples, args.seed_offset, args.timeout, progress=True)
    with open(args.out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
