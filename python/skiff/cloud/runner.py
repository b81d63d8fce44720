"""Runs one job for the service, apart from it: ``python runner.py JOBDIR`` (by path, with
the standard library only, so that it starts in milliseconds and outlives the service).
The local backend starts it in a session of its own; a service that is killed and started
again finds the job still running and follows its log where it stands.

It reads JOBDIR/run.json:

    {"commands": [[argv...], ...],   # started together, each in a process group of its own
     "prefixes": ["[launch] ", ...], # put before each line a command prints
     "agent_command": [argv...],     # an elastic job: its launchers' command ("{agent}":
     "agents": N,                    # the launcher's number), N of them at first
     "worker_logs": "DIR" | null,    # the launcher's workerlog.RANK files: "[rank R] " lines
                                     # (DIR/agentK/workerlog.L: "[worker K.L] ")
     "etcd_job": "NAME" | null,      # an elastic job: an etcd started for it ("{etcd}" in
                                     # the commands: its endpoint) and its worlds followed
     "cores": [CPU, ...] | null,     # the CPUs the job's processes are pinned to
     "env": {...}, "cwd": "DIR", "max_run_time": S,
     "log_limit": BYTES, "line_limit": BYTES}

and writes JOBDIR/log, the job's output, one line at a time as it comes (undecodable bytes
replaced, a line longer than line_limit cut, nothing past log_limit but one line saying
so), and at the end JOBDIR/exit.json: {"exit_code", "reason", "cancelled", "finished"}
(written to a temporary name and renamed, so a reader sees all of it or none). The file
JOBDIR/cancel (or SIGTERM) cancels the job: the commands' process groups get SIGTERM, then
SIGKILL after a grace period. A file, because a cancel may come before this process has
set up its signal handlers, or while the service that asked is restarting. For the same
reason an elastic job is resized through a file: JOBDIR/scale.json (see Scaling)."""
import base64
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

GRACE_SECONDS = 10.0
CUT_RESERVE = 256  # bytes of the log kept for the line that says it was cut
POLL_SECONDS = 0.02


class JobLog:
    """JOBDIR/log: bounded lines, a bounded total, one writer at a time."""

    def __init__(self, path, log_limit, line_limit):
        self._file = open(path, "ab", buffering=0)
        self._written = self._file.tell()
        self._log_limit, self._line_limit = log_limit, line_limit
        self._cut = False
        self._lock = threading.Lock()

    def line(self, prefix, raw):
        """Writes ``raw`` (bytes of one printed line) to the log."""
        self.lines(prefix, [raw])

    def lines(self, prefix, raws):
        """Writes printed lines (bytes, without or with their newline) in one write: each
        as lines of its own, a carriage return (a progress bar redrawing itself) ending
        one too."""
        out = []
        for raw in raws:
            text = raw.rstrip(b"\r\n").decode("utf-8", errors="replace")
            for part in text.split("\r") if "\r" in text else (text,):
                if part or "\r" not in text:
                    out.append(self._framed(prefix, part))
        data = b"".join(out)
        with self._lock:
            if self._cut or not data:
                return
            if self._written + len(data) > self._log_limit - CUT_RESERVE:
                fits = []  # the lines that still fit, then the one saying the rest does not
                room = self._log_limit - CUT_RESERVE - self._written
                for line in out:
                    if len(line) > room:
                        break
                    fits.append(line)
                    room -= len(line)
                fits.append(f"[skiff cloud] the log is cut here: the job printed more than "
                            f"its {self._log_limit} bytes; the rest of its output is not "
                            f"kept\n".encode())
                data = b"".join(fits)
                self._cut = True
            self._file.write(data)
            self._written += len(data)

    def _framed(self, prefix, text):
        data = text.encode()
        if len(data) > self._line_limit:
            text = data[:self._line_limit].decode("utf-8", errors="ignore")
            text += f" [line cut at {self._line_limit} bytes]"
        return (prefix + text + "\n").encode()

    def close(self):
        self._file.close()


def _copy_pipe(pipe, prefix, log):
    """Copies a command's output to the log as it comes, whole lines at a time (all the
    lines one read returns go in one write)."""
    fd, partial = pipe.fileno(), b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        lines = (partial + chunk).split(b"\n")
        partial = lines.pop()
        if lines:
            log.lines(prefix, lines)
    if partial:
        log.line(prefix, partial)
    pipe.close()


class WorkerLogs:
    """Follows DIR/workerlog.RANK files as the launcher's workers write them: each
    complete line goes to the job log as "[rank R] line". A file that shrinks was started
    again (an elastic replacement) and is read from its start."""

    def __init__(self, folder, log):
        self.folder, self.log = folder, log
        self._files = {}  # prefix -> [offset, partial bytes]

    def _logs(self):
        """(prefix, path) of every worker log: DIR/workerlog.RANK ("[rank R] "), or for an
        elastic job's launchers DIR/agentK/workerlog.L ("[worker K.L] ")."""
        found = []
        for folder, _, names in os.walk(self.folder):
            agent = os.path.relpath(folder, self.folder)
            for name in names:
                if not name.startswith("workerlog.") or not name[10:].isdigit():
                    continue
                prefix = (f"[rank {name[10:]}] " if agent == "." else
                          f"[worker {agent.removeprefix('agent')}.{name[10:]}] ")
                found.append((prefix, os.path.join(folder, name)))
        return sorted(found)

    def poll(self, final=False):
        if not os.path.isdir(self.folder):
            return
        for prefix, path in self._logs():
            state = self._files.setdefault(prefix, [0, b""])
            try:
                size = os.path.getsize(path)
                if size < state[0]:
                    state[0], state[1] = 0, b""
                if size == state[0]:
                    continue
                with open(path, "rb") as f:
                    f.seek(state[0])
                    chunk = f.read(size - state[0])
            except OSError:
                continue
            state[0] += len(chunk)
            lines = (state[1] + chunk).split(b"\n")
            state[1] = lines.pop()
            if lines:
                self.log.lines(prefix, lines)
        if final:
            for prefix, state in sorted(self._files.items()):
                if state[1]:
                    self.log.line(prefix, state[1])
                    state[1] = b""


class Usage:
    """What the job's processes use, sampled from /proc once a second: CPU seconds (those
    of processes that ended and were waited for included), resident memory now and at its
    peak, and how many processes run; written to JOBDIR/usage.json (atomically). After the
    job, its totals (finish)."""

    PERIOD = 1.0

    def __init__(self, jobdir):
        self.path = os.path.join(jobdir, "usage.json")
        self._next = 0.0
        self._peak_rss, self._cpu = 0, 0.0
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._tick = os.sysconf("SC_CLK_TCK")

    def sample(self, groups, force=False):
        now = time.monotonic()
        if not force and now < self._next:
            return
        self._next = now + self.PERIOD
        cpu, rss, count = 0, 0, 0
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) not in groups:  # field 5, the process group
                continue
            # utime, stime, and the children's that were waited for (fields 14-17)
            cpu += sum(int(v) for v in fields[11:15])
            rss += int(fields[21]) * self._page
            count += 1
        if count == 0:
            return  # they have ended: finish() writes the last sample
        self._peak_rss = max(self._peak_rss, rss)
        self._write(cpu / self._tick, rss, count)

    def finish(self):
        """The job's totals once every process was waited for: the CPU time and largest
        resident size the kernel counted for this runner's children (and theirs that they
        waited for), which no sample can miss."""
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = max(children.ru_utime + children.ru_stime, self._cpu)
        self._peak_rss = max(self._peak_rss, children.ru_maxrss * 1024)
        self._write(cpu, 0, 0)

    def _write(self, cpu, rss, count):
        self._cpu = cpu
        usage = {"cpu_seconds": round(cpu, 2), "rss_mb": round(rss / 2**20, 1),
                 "peak_rss_mb": round(self._peak_rss / 2**20, 1), "processes": count,
                 "time": time.time()}
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(usage, f)
        os.replace(tmp, self.path)


class Etcd:
    """An etcd server for one elastic job (Debian's etcd-server), on free 127.0.0.1 ports,
    its data under JOBDIR/etcd; the job's launchers and workers meet there."""

    def __init__(self, jobdir, timeout=20.0):
        binary = shutil.which("etcd")
        if binary is None:
            raise OSError("no etcd binary for the elastic job (Debian's etcd-server)")
        client, peer = _free_port(), _free_port()
        self.endpoint = f"127.0.0.1:{client}"
        url, peer_url = f"http://{self.endpoint}", f"http://127.0.0.1:{peer}"
        with open(os.path.join(jobdir, "etcd.log"), "ab") as log:
            self.process = subprocess.Popen(
                [binary, "--name", "job", "--data-dir", os.path.join(jobdir, "etcd"),
                 "--listen-client-urls", url, "--advertise-client-urls", url,
                 "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
                 "--initial-cluster", f"job={peer_url}", "--log-level", "error"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, process_group=0)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=1) as r:
                    if json.load(r).get("health") == "true":
                        return
            except (OSError, ValueError):
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise OSError(f"etcd did not start on {self.endpoint} (JOBDIR/etcd.log)")
            time.sleep(0.05)

    def range(self, prefix):
        """{key: value} of the keys under ``prefix``."""
        return etcd_range(self.endpoint, prefix)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def etcd_range(endpoint, prefix, timeout=2.0):
    """{key: value bytes} of the keys under ``prefix`` in the etcd at ``endpoint`` (its v3
    JSON gateway, so that no client library is needed; the Kubernetes operator reads the
    jobs' worlds with it too). Raises OSError or ValueError."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    body = json.dumps({"key": base64.b64encode(prefix.encode()).decode(),
                       "range_end": base64.b64encode(end.encode()).decode()}).encode()
    request = urllib.request.Request(f"http://{endpoint}/v3/kv/range", data=body,
                                     method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as r:
        kvs = json.load(r).get("kvs", [])
    return {base64.b64decode(kv["key"]).decode(): base64.b64decode(kv.get("value", ""))
            for kv in kvs}


class Membership:
    """The worlds an elastic job forms (its workers' /skiff/JOB/world/EPOCH keys, read
    twice a second) and the step each resumed training at (/skiff/JOB/resumed/EPOCH, which
    the world's rank 0 writes once it has taken the state): each world is a log line and an
    event in JOBDIR/events.jsonl, which the service turns into the job's membership events.
    A world's event waits up to STEP_WAIT seconds for its step (a world that failed before
    it resumed has none)."""

    PERIOD = 0.5
    STEP_WAIT = 10.0

    def __init__(self, etcd, job_key, jobdir, log):
        self.etcd, self.root, self.log = etcd, f"/skiff/{job_key}/", log
        self.path = os.path.join(jobdir, "events.jsonl")
        self.seen, self.size, self._next = set(), None, 0.0
        self._waiting = {}  # epoch -> (members, when first seen)

    def poll(self, final=False):
        if not final and time.monotonic() < self._next:
            return
        self._next = time.monotonic() + self.PERIOD
        try:
            worlds = self.etcd.range(self.root + "world/")
            resumed = self.etcd.range(self.root + "resumed/")
        except (OSError, ValueError):
            worlds, resumed = {}, {}
        for key, value in worlds.items():
            epoch = int(key.rsplit("/", 1)[1])
            if epoch not in self.seen and epoch not in self._waiting:
                try:
                    members = json.loads(value)
                except ValueError:
                    members = []
                self._waiting[epoch] = (members, time.monotonic())
        steps = {}
        for key, value in resumed.items():
            try:
                steps[int(key.rsplit("/", 1)[1])] = int(json.loads(value)["step"])
            except (ValueError, KeyError, TypeError):
                continue
        # in epoch order: a world waiting for its step holds back the ones after it
        for epoch in sorted(self._waiting):
            members, since = self._waiting[epoch]
            waited = time.monotonic() - since > self.STEP_WAIT
            if epoch not in steps and not (final or waited or epoch + 1 in self._waiting):
                break
            del self._waiting[epoch]
            self._record(epoch, len(members), steps.get(epoch))

    def _record(self, epoch, workers, step):
        self.seen.add(epoch)
        change = "formed" if self.size is None else (
            "grew" if workers > self.size else
            "shrank" if workers < self.size else "re-formed")
        self.size = workers
        at = f", at step {step}" if step is not None else ""
        self.log.line("[skiff cloud] ", f"world {epoch} {change}: {workers} "
                                        f"workers{at}".encode())
        detail = {"epoch": epoch, "workers": workers, "change": change}
        if step is not None:
            detail["step"] = step
        with open(self.path, "a") as f:
            f.write(json.dumps({"time": time.time(), "kind": "membership",
                                "detail": detail}) + "\n")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _exit_code(code):
    return code if code >= 0 else 128 - code


class Commands:
    """The job's processes, each in a process group of its own, their output copied to
    the log. An elastic job's launchers (agents) can be added and retired while it runs:
    a retired one is stopped and neither fails the job nor gives its exit code."""

    def __init__(self, plan, env, log):
        self.plan, self.env, self.log = plan, env, log
        self.processes, self.copiers, self.retired = [], [], {}  # retired: Popen -> since
        self.agents = {}  # agent number -> Popen (elastic jobs)
        self._numbered = 0  # agents started: numbers are never reused, so logs stay apart

    def start(self, argv, prefix):
        p = subprocess.Popen(argv, cwd=self.plan["cwd"], env=self.env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, process_group=0)
        self.processes.append(p)
        t = threading.Thread(target=_copy_pipe, args=(p.stdout, prefix, self.log), daemon=True)
        t.start()
        self.copiers.append(t)
        return p

    def start_agent(self, etcd_endpoint):
        k, self._numbered = self._numbered, self._numbered + 1
        argv = [a.replace("{etcd}", etcd_endpoint).replace("{agent}", str(k))
                for a in self.plan["agent_command"]]
        self.agents[k] = self.start(argv, f"[launch {k}] ")

    def retire_agent(self):
        """Stops the newest agent (SIGTERM to its group: its workers leave the world)."""
        k = max(self.agents)
        p = self.agents.pop(k)
        self.retired[p] = time.monotonic()
        _signal_group(p, signal.SIGTERM)

    def live(self):
        return [p for p in self.processes if p not in self.retired]

    def running(self):
        return any(p.poll() is None for p in self.processes)

    def kill_retired(self):
        """SIGKILL for a retired agent that outlived the grace period."""
        for p, since in self.retired.items():
            if p.poll() is None and time.monotonic() - since > GRACE_SECONDS:
                _signal_group(p, signal.SIGKILL)


class Scaling:
    """An elastic job's size while it runs: JOBDIR/scale.json {"agents": N, "cores": [...]}
    (written by the service's autoscaler) is read when it changes; agents are started or
    retired (the newest first) until N run, new ones pinned to ``cores``."""

    def __init__(self, jobdir, commands, etcd, log):
        self.path = os.path.join(jobdir, "scale.json")
        self.commands, self.etcd, self.log = commands, etcd, log
        self._seen = None

    def poll(self):
        try:
            stamp = os.stat(self.path).st_mtime_ns
            if stamp == self._seen:
                return
            with open(self.path) as f:
                wanted = json.load(f)
            self._seen = stamp
        except (OSError, ValueError):
            return
        agents = max(1, int(wanted["agents"]))
        have = len(self.commands.agents)
        if agents == have or any(p.poll() == 0 for p in self.commands.live()):
            return  # (a job whose agents began to finish is not resized)
        if wanted.get("cores"):
            os.sched_setaffinity(0, wanted["cores"])  # what new agents inherit
        self.log.line("[skiff cloud] ", f"scaling to {agents} workers (from {have})".encode())
        while len(self.commands.agents) < agents:
            self.commands.start_agent(self.etcd.endpoint)
        while len(self.commands.agents) > agents:
            self.commands.retire_agent()


def run(jobdir):
    with open(os.path.join(jobdir, "run.json")) as f:
        plan = json.load(f)
    log = JobLog(os.path.join(jobdir, "log"), plan["log_limit"], plan["line_limit"])
    cancelled = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: cancelled.set())
    signal.signal(signal.SIGINT, lambda *_: cancelled.set())
    env = dict(os.environ)
    env.update(plan["env"])
    commands = Commands(plan, env, log)
    reason = None
    etcd = membership = scaling = None
    try:
        if os.path.exists(os.path.join(jobdir, "cancel")):
            raise InterruptedError("cancelled before it started")
        if plan.get("cores"):  # inherited by every process the job starts
            os.sched_setaffinity(0, plan["cores"])
        if plan.get("etcd_job"):
            etcd = Etcd(jobdir)
            membership = Membership(etcd, plan["etcd_job"], jobdir, log)
            scaling = Scaling(jobdir, commands, etcd, log)
            for _ in range(plan["agents"]):
                commands.start_agent(etcd.endpoint)
        for argv, prefix in zip(plan["commands"], plan["prefixes"]):
            commands.start(argv, prefix)
    except InterruptedError:
        cancelled.set()
    except OSError as e:
        log.line("[skiff cloud] ", f"the job could not start: {e}".encode())
        reason = f"could not start: {e}"
    cancel_file = os.path.join(jobdir, "cancel")
    workers = WorkerLogs(plan["worker_logs"], log) if plan.get("worker_logs") else None
    deadline = time.monotonic() + plan["max_run_time"]
    stopping_since = None
    usage = Usage(jobdir)
    while commands.running():
        usage.sample({p.pid for p in commands.processes})
        if membership:
            membership.poll()
        if scaling and stopping_since is None:
            scaling.poll()
        if workers:
            workers.poll()
        if os.path.exists(cancel_file):
            cancelled.set()
        failed = [p for p in commands.live() if p.poll() not in (None, 0)]
        if stopping_since is None and (cancelled.is_set() or failed
                                       or time.monotonic() > deadline):
            if cancelled.is_set():
                reason = "cancelled"
            elif failed:
                reason = None
            else:
                reason = f"ran past its max_run_time of {plan['max_run_time']} s"
                log.line("[skiff cloud] ", f"the job {reason}; stopping it".encode())
            stopping_since = time.monotonic()
            for p in commands.processes:
                if p.poll() is None:
                    _signal_group(p, signal.SIGTERM)
        if stopping_since is not None and time.monotonic() - stopping_since > GRACE_SECONDS:
            for p in commands.processes:
                _signal_group(p, signal.SIGKILL)
        commands.kill_retired()
        time.sleep(POLL_SECONDS)
    for t in commands.copiers:
        t.join(timeout=5)
    if commands.processes:
        usage.finish()
    if workers:
        workers.poll(final=True)
    if membership:
        membership.poll(final=True)
    if etcd:
        etcd.stop()
    codes = [_exit_code(p.returncode) for p in commands.live()]
    code = next((c for c in codes if c != 0), 0) if codes else 1
    if cancelled.is_set() and reason is None:
        reason = "cancelled"
    log.close()
    _write_exit(jobdir, {"exit_code": code, "reason": reason,
                         "cancelled": reason == "cancelled", "finished": time.time()})
    return code


def _signal_group(process, sig):
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _write_exit(jobdir, result):
    tmp = os.path.join(jobdir, "exit.json.tmp")
    with open(tmp, "w") as f:
        json.dump(result, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(jobdir, "exit.json"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python runner.py JOBDIR", file=sys.stderr)
        sys.exit(2)
    run(sys.argv[1])  # the job's exit code is in exit.json; the runner itself succeeded
