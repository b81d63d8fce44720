"""A job's specification, as a client sends it (JSON) and the service checks it. Every
mistake raises SpecError naming the field and what was wrong; unknown fields are refused
(a misspelt option must not be dropped silently).

    {"name": "mnist", "script": "train.py", "args": ["--epochs", "3"],
     "workers": "1:4", "nproc": 1, "cpus": 1, "priority": 0, "max_run_time": 3600,
     "env": {"SEED": "1"}, "keep": ["checkpoints"], "board_logdir": "runs"}

The job runs one of: ``script``, a path inside the uploaded directory; ``module``, a
module to run as ``python -m`` would; ``program``, a saved program (.skmodel) inside the
uploaded directory that ``skiff run`` runs (one process: its ``args`` are skiff run's,
e.g. ["--params", "m.skparams", "--feed", "x=x.npy", "--fetch", "y", "--out", "out"]).
``args`` is a list of strings handed to the program as they are (never through a shell)."""
import re

__all__ = ["SpecError", "check_spec", "parse_workers", "slots_of"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Variables the service sets itself for every worker.
_RESERVED_ENV = ("SKIFF_RANK", "SKIFF_WORLD_SIZE", "SKIFF_LOCAL_RANK", "SKIFF_ETCD",
                 "SKIFF_JOB_ID", "SKIFF_CLOUD_JOB", "PYTHONPATH")
MAX_ARGS = 1024
MAX_ARG_BYTES = 64 << 10
MAX_WORKERS = 1024
MAX_RUN_TIME = 30 * 24 * 3600

# What a job runs: exactly one of these.
_KINDS = ("script", "module", "program")
_FIELDS = {"name", *_KINDS, "args", "workers", "nproc", "cpus", "priority", "max_run_time",
           "env", "keep", "board_logdir"}


class SpecError(ValueError):
    """A bad job specification; the message names the field."""


def _relative_path(field, value):
    if not isinstance(value, str) or not value:
        raise SpecError(f"{field} must be a non-empty relative path, got {value!r}")
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or ".." in parts or "\x00" in value:
        raise SpecError(f"{field} must stay inside the job's directory (no absolute path, "
                        f"no '..'), got {value!r}")
    return "/".join(p for p in parts if p not in ("", "."))


def _int(field, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(f"{field} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise SpecError(f"{field} must be in [{low}, {high}], got {value}")
    return value


def parse_workers(value):
    """(min, max) from "N", "MIN:MAX" or an int; SpecError otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        low = high = value
    elif isinstance(value, str) and re.fullmatch(r"-?\d+(:-?\d+)?", value.strip()):
        parts = [int(p) for p in value.strip().split(":")]
        low, high = (parts[0], parts[0]) if len(parts) == 1 else parts
    else:
        raise SpecError(f"workers must be N or MIN:MAX, got {value!r}")
    if low < 1:
        raise SpecError(f"workers: MIN must be at least 1, got {low}")
    if high < low:
        raise SpecError(f"workers: MIN {low} is above MAX {high}")
    if high > MAX_WORKERS:
        raise SpecError(f"workers: MAX must be at most {MAX_WORKERS}, got {high}")
    return low, high


def check_spec(spec):
    """The spec with its defaults filled in; raises SpecError for anything wrong."""
    if not isinstance(spec, dict):
        raise SpecError(f"the job spec must be a JSON object, got {type(spec).__name__}")
    unknown = sorted(set(spec) - _FIELDS)
    if unknown:
        raise SpecError(f"unknown field(s) {unknown}; a job spec has {sorted(_FIELDS)}")
    out = {}
    if sum(key in spec for key in _KINDS) != 1:
        raise SpecError("give exactly one of script (a file in the uploaded directory), "
                        "module (run as python -m) and program (a saved .skmodel that "
                        "skiff run runs)")
    if "script" in spec:
        out["script"] = _relative_path("script", spec["script"])
    elif "program" in spec:
        out["program"] = _relative_path("program", spec["program"])
        if not out["program"].endswith(".skmodel"):
            raise SpecError(f"program must be a saved program (.skmodel), got "
                            f"{spec['program']!r}")
    else:
        if not isinstance(spec["module"], str) or not _MODULE.match(spec["module"]):
            raise SpecError(f"module must be a dotted module name, got {spec['module']!r}")
        out["module"] = spec["module"]
    default_name = next(out[key] for key in _KINDS if key in out).rsplit("/", 1)[-1]
    name = spec.get("name", re.sub(r"[^A-Za-z0-9._-]", "_", default_name)[:64] or "job")
    if not isinstance(name, str) or not _NAME.match(name):
        raise SpecError(f"name must be 1-64 letters, digits, '.', '_' or '-' (starting with "
                        f"a letter or digit), got {name!r}")
    out["name"] = name
    args = spec.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise SpecError(f"args must be a list of strings, got {args!r}"[:300])
    if len(args) > MAX_ARGS or sum(len(a.encode()) for a in args) > MAX_ARG_BYTES:
        raise SpecError(f"args: at most {MAX_ARGS} arguments and {MAX_ARG_BYTES} bytes")
    if any("\x00" in a for a in args):
        raise SpecError("args: an argument holds a NUL byte")
    out["args"] = list(args)
    out["workers"] = list(parse_workers(spec.get("workers", 1)))
    out["nproc"] = _int("nproc", spec.get("nproc", 1), 1, 256)
    if "program" in out and (out["workers"] != [1, 1] or out["nproc"] != 1):
        raise SpecError(f"program: a saved program runs as one process (skiff run); "
                        f"workers and nproc must be 1, got workers {spec.get('workers')!r} "
                        f"and nproc {out['nproc']}")
    out["cpus"] = _int("cpus", spec.get("cpus", 1), 1, 1024)
    out["priority"] = _int("priority", spec.get("priority", 0), -1000, 1000)
    out["max_run_time"] = _int("max_run_time", spec.get("max_run_time", 24 * 3600), 1,
                               MAX_RUN_TIME)
    env = spec.get("env", {})
    if not isinstance(env, dict):
        raise SpecError(f"env must be an object of strings, got {type(env).__name__}")
    for key, value in env.items():
        if not _ENV_NAME.match(key) or not isinstance(value, str) or "\x00" in value:
            raise SpecError(f"env: {key!r} must be a variable name with a string value")
        if key in _RESERVED_ENV:
            raise SpecError(f"env: {key} is set by the service for every worker")
    out["env"] = dict(env)
    keep = spec.get("keep", [])
    if not isinstance(keep, list):
        raise SpecError(f"keep must be a list of paths, got {keep!r}")
    out["keep"] = [_relative_path("keep", k) for k in keep]
    if spec.get("board_logdir") is not None:
        out["board_logdir"] = _relative_path("board_logdir", spec["board_logdir"])
        if out["board_logdir"] not in out["keep"]:
            out["keep"].append(out["board_logdir"])
    return out


def slots_of(spec):
    """The machine slots a job holds while it runs: its minimum workers, each with its
    processes and CPUs."""
    return spec["workers"][0] * spec["nproc"] * spec["cpus"]
