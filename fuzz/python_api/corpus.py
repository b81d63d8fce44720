"""The corpus of calls that crashed or hung skiff, and running Python source in a fresh,
memory-limited interpreter. Standard library only: the pytest replay loads this file alone.

    result = run_source("skiff.diff(skiff.ones([2, 3]), 10**20)", timeout=10)
    result["outcome"]                 # "hang"; else "crash", "error" or "ok"
    write_entry(CORPUS_DIR, {"source": ..., "seen": "hang", "found": "hand"})

An entry is one JSON file named by a hash of its source: "source" (Python that runs with
skiff and numpy as np imported), "seen" (what it did when recorded), "found" (the fuzz run
or "hand"), and optionally "target", "site" (where it was seen failing) and "recipe"."""

import hashlib
import json
import os
import pathlib
import resource
import signal
import subprocess
import sys

CHECKOUT = pathlib.Path(__file__).resolve().parents[2]
CORPUS_DIR = pathlib.Path(__file__).resolve().parent / "corpus"
MEMORY_LIMIT = 8 << 30  # address space of each child: a real huge allocation fails
ENTRY_KEYS = ("id", "target", "source", "seen", "site", "found", "recipe")


def build_dir():
    """The build tree whose python/ folder holds skiff (SKIFF_BUILD_DIR, default build/)."""
    return pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", CHECKOUT / "build"))


def prelude():
    """Source that limits the process's memory, then imports skiff from the build tree and
    numpy as np."""
    python_dir = str(build_dir() / "python")
    return (f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, "
            f"{MEMORY_LIMIT})); resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
            f"import sys; sys.path.insert(0, {python_dir!r})\nimport numpy as np\nimport skiff\n")


def child_environment():
    """The environment of fuzzing children: one OpenMP thread, output unbuffered."""
    environment = dict(os.environ, OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
                       PYTHONFAULTHANDLER="1")
    environment.pop("PYTHONPATH", None)
    return environment


def limit_child():
    """Limits this process (a child): the address-space limit, and no core files."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def describe_exit(returncode):
    """"SIGSEGV" for a child a signal killed, "exit 3" for a nonzero exit, "" for exit 0."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit {returncode}" if returncode else ""


def run_source(source, timeout):
    """Runs prelude + source in a fresh interpreter; a dict with "outcome" ("ok", "error":
    an exception, "crash": killed by a signal or died otherwise, "hang": past timeout
    seconds), "detail" (signal or last line of the error) and "stderr" (its tail)."""
    process = subprocess.Popen([sys.executable, "-c", prelude() + source],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=child_environment(), start_new_session=True)
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        return {"outcome": "hang", "detail": f"over {timeout} s", "stderr": _tail(stderr)}
    tail = _tail(stderr)
    if process.returncode == 0:
        return {"outcome": "ok", "detail": "", "stderr": tail}
    last = tail.strip().splitlines()[-1] if tail.strip() else ""
    if process.returncode == 1 and "Traceback" in tail and "Fatal Python error" not in tail:
        return {"outcome": "error", "detail": last, "stderr": tail}
    return {"outcome": "crash", "detail": describe_exit(process.returncode), "stderr": tail}


def entry_id(source):
    """The name of source's corpus entry: ten hex digits of its SHA-1."""
    return hashlib.sha1(source.encode()).hexdigest()[:10]


def write_entry(folder, entry):
    """Writes entry (a dict with at least "source") as folder/<id>.json; returns the path."""
    entry = dict(entry, id=entry_id(entry["source"]))
    ordered = {key: entry[key] for key in ENTRY_KEYS if entry.get(key) is not None}
    path = pathlib.Path(folder) / f"{entry['id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in ordered.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    return path


def load_entries(folder=CORPUS_DIR):
    """All entries of a corpus folder, sorted by file name."""
    return [json.loads(path.read_text()) for path in sorted(pathlib.Path(folder).glob("*.json"))]


def _tail(data, size=4000):
    return data[-size:].decode(errors="replace") if data else ""
