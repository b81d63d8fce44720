"""Regenerate paddle_reference.json.gz from the installed PaddlePaddle wheel.

    python tests/python/paddle_parity/make_paddle_reference.py   # a few minutes

Extracts the docstring examples (parity_examples.extract), runs them under Paddle twice,
the second time with every seed moved by one, and writes for each example its code, why
it is left out (if it is) and Paddle's record: a printed output or a value that differs
between the two runs is marked random, and is compared by shape and dtype only.
"""

import gzip
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

import parity_examples

HERE = pathlib.Path(__file__).resolve().parent
REFERENCE = HERE / "paddle_reference.json.gz"


def _same(a, b):
    """Whether two records of a value (or two token lists) agree within 1e-6."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))
    return a == b


def _run_paddle(examples_path, seed_offset):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        pass
    subprocess.run([sys.executable, str(HERE / "parity_runner.py"), "--backend", "paddle",
                    "--examples", examples_path, "--out", out.name, "--timeout", "20",
                    "--seed-offset", str(seed_offset)], check=True)
    with open(out.name) as f:
        results = json.load(f)
    os.unlink(out.name)
    return results


def main():
    import paddle  # noqa: PLC0415 - the reference needs the wheel; the suite does not

    examples = parity_examples.extract()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(examples, f)
    first, second = _run_paddle(f.name, 0), _run_paddle(f.name, 1)
    os.unlink(f.name)
    for example in examples:
        record = first.get(example["id"])
        if record is None:
            continue
        again = second.get(example["id"], {})
        record["stdout_random"] = not _same(record["stdout"], again.get("stdout"))
        for name, value in record["values"].items():
            value["random"] = not _same(value, again.get("values", {}).get(name))
        example["paddle"] = record
    # gzip without a time stamp: the same results give the same bytes
    with gzip.GzipFile(REFERENCE, "wb", mtime=0) as raw, io.TextIOWrapper(raw) as f:
        json.dump({"paddle_version": paddle.__version__, "examples": examples}, f,
                  indent=0, separators=(",", ":"))
        f.write("\n")
    print(f"{REFERENCE}: {len(examples)} examples, Paddle {paddle.__version__}")


if __name__ == "__main__":
    main()
