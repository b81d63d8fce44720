"""Where the service's jobs run: one interface, ``Backend``, and the default ``LocalBackend``
(this machine). The service admits a job (its slots), calls ``start``, then ``poll`` until
the job has a result, and ``cancel`` to stop it. What ``start`` returns (the runner's
record) is kept in the job's row, so a service that starts again hands it back to
``poll`` and ``cancel`` and the job goes on: the backend's processes do not belong to the
service process. A Kubernetes backend (a pod per worker) plugs in behind the same calls.

    backend = LocalBackend(slots=os.cpu_count())
    record = backend.start(job, jobdir)        # a dict, JSON-able
    result = backend.poll(record, jobdir)      # None while running, else
                                               # {"exit_code", "reason", "cancelled"}
    record = backend.scale(record, job, jobdir, 3)   # an elastic job, to 3 workers
    backend.cancel(record, jobdir)
"""
import abc
import json
import os
import shutil
import subprocess
import sys

__all__ = ["Backend", "LocalBackend", "RUNNER"]

# The job runner, started by path (the standard library only: it starts at once).
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner.py")
# What every job's output may hold, and each of its lines.
LOG_LIMIT = 64 << 20
LINE_LIMIT = 16 << 10
# The package that holds skiff, for the jobs' PYTHONPATH (they import skiff as the service
# does).
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Backend(abc.ABC):
    """The calls the service makes; see the module's docstring."""

    name = "abstract"

    @abc.abstractmethod
    def slots(self):
        """How many slots the backend's machines offer (a job holds slots_of(spec))."""

    @abc.abstractmethod
    def start(self, job, jobdir, workers=None):
        """Starts the job (an elastic one with ``workers``; None: its minimum); returns its
        record (a JSON-able dict the service keeps; "workers": how many it runs)."""

    @abc.abstractmethod
    def scale(self, record, job, jobdir, workers):
        """Resizes running elastic ``job`` to ``workers``; returns its new record."""

    @abc.abstractmethod
    def poll(self, record, jobdir):
        """None while the job runs, else {"exit_code", "reason", "cancelled"}."""

    @abc.abstractmethod
    def cancel(self, record, jobdir):
        """Asks the job to stop (its result then comes through poll)."""


def skiff_cli():
    """The `skiff` command (it runs saved programs): the one that started this service
    (SKIFF_CLI), else the build tree's beside this package, else `skiff` on the PATH."""
    if os.environ.get("SKIFF_CLI"):
        return os.environ["SKIFF_CLI"]
    built = os.path.join(os.path.dirname(_PACKAGE_PARENT), "bin", "skiff")
    return built if os.access(built, os.X_OK) else shutil.which("skiff") or "skiff"


def _process_start_time(pid):
    """The kernel's start time of process ``pid`` (clock ticks since boot), or None when
    there is no such process or it has exited (a zombie): with the pid it names one
    process, even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ("Z", "X") else int(fields[19])


def _read_exit(jobdir):
    try:
        with open(os.path.join(jobdir, "exit.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class LocalBackend(Backend):
    """Runs each job on this machine under a runner process (runner.py) in a session of
    its own: a saved program runs under `skiff run`; one worker of one process runs the
    script itself; more run it through
    ``skiff launch`` (its workers' logs read back rank by rank); an elastic job (workers
    MIN:MAX) runs MIN launchers meeting in an etcd the runner starts for it, whose worlds
    become the job's membership events. Each job is pinned to as many CPUs as its slots
    (sched_setaffinity; those the fewest jobs hold), and its processes compute with that
    many threads (OMP_NUM_THREADS = its cpus per process)."""

    name = "local"

    def __init__(self, slots=None, log_limit=LOG_LIMIT, line_limit=LINE_LIMIT):
        self._slots = slots or os.cpu_count() or 1
        self.log_limit, self.line_limit = log_limit, line_limit
        self._children = {}  # pid -> Popen, for the runners this process started
        self._cores = sorted(os.sched_getaffinity(0))  # the CPUs jobs are pinned to
        self._pinned = {}  # runner pid -> the CPUs its job is pinned to

    def slots(self):
        return self._slots

    def pick_cores(self, count, held=()):
        """``count`` CPUs for a job (all of them if it asks for more): those the fewest
        running jobs are pinned to, lowest number first; the job's own (``held``) last."""
        load = dict.fromkeys(self._cores, 0)
        for cores in self._pinned.values():
            for core in cores:
                if core in load:
                    load[core] += 1
        order = sorted(self._cores, key=lambda c: (c in held, load[c], c))
        return sorted(order[:count])

    def plan(self, job, jobdir, cores=None, workers=None):
        """run.json for the runner: the commands, their environment, the CPUs the job is
        pinned to (``cores``; None: not pinned) and its limits; an elastic job starts with
        ``workers`` launchers (None: its minimum)."""
        spec = job["spec"]
        work = os.path.join(jobdir, "work")
        low, high = spec["workers"]
        env = dict(spec["env"])
        env["SKIFF_CLOUD_JOB"] = str(job["id"])
        # each process computes with the CPUs its slots hold (skiff's kernels, numpy, ...)
        env.setdefault("OMP_NUM_THREADS", str(spec["cpus"]))
        env["PYTHONUNBUFFERED"] = "1"
        path = os.environ.get("PYTHONPATH", "")
        env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + path if path else "")
        program = (["-m", spec["module"]] if "module" in spec
                   else [os.path.join(work, spec["script"])] if "script" in spec else None)
        processes = low * spec["nproc"]
        etcd_job = None
        if "program" in spec:  # a saved program: skiff run, one process
            commands = [[skiff_cli(), "run", os.path.join(work, spec["program"]),
                         *spec["args"]]]
            prefixes, worker_logs = ["[rank 0] "], None
        elif low != high:
            program = self._launcher_program(spec, jobdir, program)
            worker_logs, etcd_job = os.path.join(jobdir, "workers"), f"cloud-{job['id']}"
            # launchers (agents), each with its processes, meeting in the job's etcd: as
            # many as the job starts with, then as many as scale() asks for
            agent = [sys.executable, "-u", "-m", "skiff.distributed.launch",
                     "--nnodes", f"{low}:{high}", "--nproc_per_node", str(spec["nproc"]),
                     "--etcd", "{etcd}", "--job_id", etcd_job,
                     "--log_dir", os.path.join(worker_logs, "agent{agent}"), "--no_echo",
                     *program, *spec["args"]]
            commands, prefixes = [], []
        elif processes == 1:
            env.update({"SKIFF_RANK": "0", "SKIFF_WORLD_SIZE": "1", "SKIFF_LOCAL_RANK": "0",
                        "PADDLE_TRAINER_ID": "0", "PADDLE_TRAINERS_NUM": "1"})
            commands = [[sys.executable, "-u", *program, *spec["args"]]]
            prefixes, worker_logs = ["[rank 0] "], None
        else:
            program = self._launcher_program(spec, jobdir, program)
            worker_logs = os.path.join(jobdir, "workers")
            commands = [[sys.executable, "-u", "-m", "skiff.distributed.launch",
                         "--nproc_per_node", str(processes), "--log_dir", worker_logs,
                         "--job_id", f"cloud-{job['id']}", "--no_echo", *program,
                         *spec["args"]]]
            prefixes = ["[launch] "]
        plan = {"commands": commands, "prefixes": prefixes, "worker_logs": worker_logs,
                "etcd_job": etcd_job, "env": env, "cwd": work, "cores": cores,
                "max_run_time": spec["max_run_time"], "log_limit": self.log_limit,
                "line_limit": self.line_limit}
        if etcd_job:
            plan.update(agent_command=agent, agents=workers or low)
        return plan

    @staticmethod
    def _launcher_program(spec, jobdir, program):
        """What skiff launch runs: the script, or for a module a script that runs it."""
        if "module" not in spec:
            return program
        shim = os.path.join(jobdir, "run_module.py")
        with open(shim, "w") as f:
            f.write(f"import os, runpy, sys\nsys.path.insert(0, os.getcwd())\n"
                    f"runpy.run_module({spec['module']!r}, run_name='__main__', "
                    f"alter_sys=True)\n")
        return [shim]

    def start(self, job, jobdir, workers=None):
        spec = job["spec"]
        count = (workers or spec["workers"][0]) * spec["nproc"] * spec["cpus"]
        cores = self.pick_cores(count)
        with open(os.path.join(jobdir, "run.json"), "w") as f:
            json.dump(self.plan(job, jobdir, cores, workers), f)
        with open(os.path.join(jobdir, "runner.err"), "wb") as err:
            # -P: the runner's folder stays off sys.path (its packages must not shadow a
            # standard module)
            p = subprocess.Popen([sys.executable, "-P", RUNNER, jobdir],
                                 stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                 start_new_session=True, close_fds=True)
        self._children[p.pid] = p
        self._pinned[p.pid] = cores
        return {"backend": self.name, "pid": p.pid, "start_time": _process_start_time(p.pid),
                "cores": cores, "workers": workers or spec["workers"][0]}

    def _alive(self, record):
        child = self._children.get(record["pid"])
        if child is not None:
            if child.poll() is None:
                return True
            del self._children[record["pid"]]
            return False
        start = _process_start_time(record["pid"])
        return start is not None and start == record.get("start_time")

    def poll(self, record, jobdir):
        # (a job this process did not start, re-adopted after a restart, holds its CPUs)
        self._pinned.setdefault(record["pid"], record.get("cores") or [])
        result = self._poll(record, jobdir)
        if result is not None:
            self._pinned.pop(record["pid"], None)
        return result

    def _poll(self, record, jobdir):
        result = _read_exit(jobdir)
        if result is not None:
            child = self._children.pop(record["pid"], None)
            if child is not None:
                child.wait()
            return result
        if self._alive(record):
            return None
        result = _read_exit(jobdir)  # it may have written its result as it ended
        if result is not None:
            return result
        return {"exit_code": None, "cancelled": False,
                "reason": "the job's runner ended without a result (killed from outside?)"}

    def scale(self, record, job, jobdir, workers):
        """Asks the runner of elastic ``job`` to run ``workers`` launchers (JOBDIR/
        scale.json, which it watches): added ones pinned to more CPUs, the newest stopped
        first. Returns the job's new record."""
        spec = job["spec"]
        low, high = spec["workers"]
        if low == high:
            raise ValueError(f"job {job['id']} is not elastic (workers {low})")
        if not low <= workers <= high:
            raise ValueError(f"job {job['id']}: {workers} workers is outside {low}:{high}")
        want = workers * spec["nproc"] * spec["cpus"]
        cores = list(record.get("cores") or [])
        if want > len(cores):  # (a shrunk job keeps its CPUs: its agents may share them)
            cores = sorted(set(cores) | set(self.pick_cores(want - len(cores), cores)))
        self._pinned[record["pid"]] = cores
        tmp = os.path.join(jobdir, "scale.json.tmp")
        with open(tmp, "w") as f:
            json.dump({"agents": workers, "cores": cores}, f)
        os.replace(tmp, os.path.join(jobdir, "scale.json"))
        return dict(record, cores=cores, workers=workers)

    def cancel(self, record, jobdir):
        """Asks the runner to stop the job (the file JOBDIR/cancel, which it watches; it
        may not have its signal handlers yet)."""
        with open(os.path.join(jobdir, "cancel"), "w") as f:
            f.write("cancel\n")
