"""Runs a worker script as a job of the launcher (python -m skiff.distributed.launch) on
127.0.0.1, with its own etcd, bounded in time."""
import importlib.util
import os
import pathlib
import subprocess
import sys

WORKERS = pathlib.Path(__file__).resolve().parent / "workers"


def load_worker(name):
    """The worker module workers/NAME.py (a model and data the tests share with workers)."""
    spec = importlib.util.spec_from_file_location(name, WORKERS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def job_env():
    """This process's environment, with its import path (the build tree's skiff)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def run_job(tmp_path, script, nproc, *args, launcher_args=(), timeout=240):
    """(exit code, launcher output, {rank: log}) of the job."""
    env = job_env()
    log_dir = tmp_path / "log"
    cmd = [sys.executable, "-m", "skiff.distributed.launch", "--nproc_per_node", str(nproc),
           "--log_dir", str(log_dir), *launcher_args, str(WORKERS / script), *map(str, args)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    logs = {}
    if log_dir.exists():
        for f in log_dir.glob("workerlog.*"):
            logs[int(f.suffix[1:])] = f.read_text(errors="replace")
    return done.returncode, done.stdout + done.stderr, logs


def describe(rc, output, logs):
    parts = [f"launcher exit code {rc}", output]
    for rank in sorted(logs):
        parts.append(f"--- worker {rank} ---\n{logs[rank][-4000:]}")
    return "\n".join(parts)
