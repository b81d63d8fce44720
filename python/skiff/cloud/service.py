"""The job service without its HTTP: jobs submitted, queued, admitted to the backend,
followed to their end and cancelled; the state in the Store, each job's files under
ROOT/jobs/ID/ (work/: the uploaded directory, where the program runs; log; run.json;
exit.json). ``tick()``, called a few times a second, moves everything forward; a service
that starts on an existing root re-adopts the jobs that were running.

Which queued jobs start: queue.py (priority, then submission, within each user's quota),
or, with the autoscaler, scaling.py (the same queue's head, elastic jobs resized)."""
import json
import os
import re
import shutil
import tempfile
import time

from .archive import ArchiveError, unpack
from .logs import LogIndex, tail_lines
from .queue import Quota, admit
from .scaling import Scaler
from .spec import SpecError, check_spec, slots_of
from .store import FINAL_STATES, Store

__all__ = ["JobService", "Quota", "admit", "ServiceError"]  # (Quota, admit: from queue.py)

MAX_UPLOAD = 256 << 20        # bytes of an uploaded archive
MAX_UNPACKED = 1 << 30        # bytes its files may add up to
_SERVICE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class ServiceError(Exception):
    """A refused request: ``status`` is the HTTP status it maps to."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


class JobService:
    def __init__(self, root, backend, quota=None, max_upload=MAX_UPLOAD,
                 max_unpacked=MAX_UNPACKED, autoscale=None):
        self.root = os.path.abspath(root)
        os.makedirs(os.path.join(self.root, "jobs"), exist_ok=True)
        os.makedirs(os.path.join(self.root, "incoming"), exist_ok=True)
        self.store = Store(os.path.join(self.root, "cloud.db"))
        self.backend = backend
        self.quota = quota or Quota()
        self.max_upload, self.max_unpacked = max_upload, max_unpacked
        self._logs = {}  # job id -> LogIndex
        self._runner_events = {}  # job id -> events.jsonl lines already in the store
        # the autoscaler (an autoscaler.Config), else the queue alone starts jobs and
        # elastic jobs keep the workers they start with
        self.scaler = Scaler(self, autoscale) if autoscale is not None else None
        self._clear_incoming()

    def close(self):
        self.store.close()

    def jobdir(self, job_id):
        return os.path.join(self.root, "jobs", str(int(job_id)))

    def _clear_incoming(self):
        """Uploads that a previous run of the service did not finish."""
        folder = os.path.join(self.root, "incoming")
        for name in os.listdir(folder):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)

    def incoming_dir(self):
        """A fresh folder for one upload (removed by submit, or at the next start)."""
        return tempfile.mkdtemp(dir=os.path.join(self.root, "incoming"))

    def quota_of(self, name):
        user = self.store.user(name) or {}
        running = user.get("max_running")
        slots = user.get("max_slots")
        return Quota(self.quota.running if running is None else running,
                     self.quota.slots if slots is None else slots)

    # ---- requests

    def submit(self, user, spec, archive_path=None):
        """Checks ``spec`` and the archive (a file path, or None), unpacks it and queues
        the job; returns the job. Raises ServiceError (400) naming what was wrong; nothing
        is kept of a refused job."""
        return self.commit(user, self.prepare(spec, archive_path))

    def prepare(self, spec, archive_path=None):
        """submit's work that touches no database (the server runs it off its event
        loop): the spec checked, the archive unpacked into a staging folder. Returns what
        ``commit`` takes."""
        try:
            spec = check_spec(spec)
        except SpecError as e:
            raise ServiceError(400, f"bad job spec: {e}") from None
        slots = slots_of(spec)
        if slots > self.backend.slots():
            raise ServiceError(400, f"the job needs {slots} slots (workers x nproc x cpus) "
                                    f"and the service has {self.backend.slots()}")
        staging = self.incoming_dir()
        try:
            work = os.path.join(staging, "work")
            os.makedirs(work)
            if archive_path is not None:
                try:
                    unpack(archive_path, work, self.max_unpacked)
                except ArchiveError as e:
                    raise ServiceError(400, f"bad archive: {e}") from None
            if "script" in spec:
                script = os.path.join(work, spec["script"])
                if not os.path.isfile(script) or os.path.islink(script):
                    raise ServiceError(400, f"bad job spec: script {spec['script']!r} is not a "
                                            f"file in the uploaded directory")
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return spec, slots, staging

    def commit(self, user, prepared):
        """Queues a prepared job for ``user`` (its quota checked); returns the job."""
        spec, slots, staging = prepared
        try:
            quota = self.quota_of(user["name"])
            if quota.slots is not None and slots > quota.slots:
                raise ServiceError(400, f"the job needs {slots} slots and {user['name']}'s "
                                        f"quota is {quota.slots}")
            job = self.store.add_job(user["name"], spec["name"], spec, spec["priority"], slots)
            os.replace(staging, self.jobdir(job["id"]))
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._event_happened()
        return job

    def get(self, user, job_id):
        """The job, if ``user`` may see it: ServiceError 404 / 403 otherwise."""
        job = self.store.job(job_id)
        if job is None:
            raise ServiceError(404, f"no job {job_id}")
        if job["user"] != user["name"] and not user["admin"]:
            raise ServiceError(403, f"job {job_id} belongs to another user")
        return job

    def cancel(self, user, job_id):
        job = self.get(user, job_id)
        if job["state"] in FINAL_STATES:
            return job
        if job["state"] == "queued":
            self.store.set_state(job_id, "cancelled", reason=f"cancelled by {user['name']}")
            self._event_happened()
        else:
            self.store.add_event(job_id, "note", {"text": f"cancel asked by {user['name']}"})
            self.backend.cancel(job["runner"], self.jobdir(job_id))
        return self.store.job(job_id)

    def set_service(self, user, name, demand, cpus):
        """Service ``name`` (work that is not training: its pods get room before elastic
        jobs grow) wants ``demand`` pods of ``cpus`` each; admins only. Returns it, with
        ``granted``: how many pods have room now (the autoscaler shrinks elastic jobs to
        make room for the rest)."""
        if not user["admin"]:
            raise ServiceError(403, "only an admin may declare a service's demand")
        if not _SERVICE_NAME.match(name or ""):
            raise ServiceError(400, f"bad service name {name!r}: 1-64 letters, digits, "
                                    f"'.', '_' or '-'")
        if isinstance(demand, bool) or not isinstance(demand, int) or not 0 <= demand <= 10**6:
            raise ServiceError(400, f"demand must be an integer number of pods in "
                                    f"[0, 1000000], got {demand!r}")
        if isinstance(cpus, bool) or not isinstance(cpus, (int, float)) or not (
                0 < cpus <= self.backend.slots()):
            raise ServiceError(400, f"cpus must be a number of CPUs per pod in "
                                    f"(0, {self.backend.slots()}], got {cpus!r}")
        service = self.store.set_service(name, user["name"], demand, float(cpus))
        self._event_happened()
        return service

    def remove_service(self, user, name):
        if not user["admin"]:
            raise ServiceError(403, "only an admin may remove a service")
        if self.store.service(name) is None:
            raise ServiceError(404, f"no service {name!r}")
        self.store.remove_service(name)
        self._event_happened()

    def _event_happened(self):
        if self.scaler is not None:
            self.scaler.dirty = True

    def kept_files(self, job):
        """(the job's real work folder, [(path, size)] of the regular files under its kept
        paths, links not followed): what the job's artifacts are."""
        work = os.path.realpath(os.path.join(self.jobdir(job["id"]), "work"))
        files = []
        for kept in job["spec"]["keep"]:
            top = os.path.join(work, kept)
            if os.path.islink(top) or not os.path.exists(top):
                continue
            if os.path.isfile(top):
                files.append((kept, os.path.getsize(top)))
                continue
            for folder, dirs, names in os.walk(top):
                dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
                for name in names:
                    path = os.path.join(folder, name)
                    if os.path.isfile(path) and not os.path.islink(path):
                        files.append((os.path.relpath(path, work), os.path.getsize(path)))
        return work, sorted(files)

    def usage(self, job_id):
        """The job's last resource sample (its runner's usage.json), or None."""
        try:
            with open(os.path.join(self.jobdir(job_id), "usage.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def log_index(self, job_id):
        index = self._logs.get(job_id)
        if index is None:
            index = self._logs[job_id] = LogIndex(os.path.join(self.jobdir(job_id), "log"))
        index.refresh()
        return index

    # ---- moving forward

    def recover(self):
        """At start: jobs that were starting or running are followed again (their
        runners outlive the service); a job left starting without a runner is failed."""
        for job in self.store.active():
            if job["runner"] is None:
                self.store.set_state(job["id"], "failed",
                                     reason="the service stopped while starting the job")
            else:
                self.store.add_event(job["id"], "note", {"text": "service restarted; job "
                                                                 "re-adopted"})

    def tick(self):
        """Finishes the jobs that ended and starts the queued jobs that fit. Returns the
        ids of jobs whose state changed."""
        changed = []
        for job in self.store.active():
            if job["runner"] is None:
                continue
            result = self.backend.poll(job["runner"], self.jobdir(job["id"]))
            if self._take_runner_events(job["id"]):
                changed.append(job["id"])
            if result is not None:
                self._finish(job, result)
                changed.append(job["id"])
        if changed:
            self._event_happened()
        if self.scaler is not None:
            return changed + self.scaler.tick(time.time())
        active = self.store.active()
        for job in admit(self.store.queued(), active, self.backend.slots(), self.quota_of):
            self.start_job(job)
            changed.append(job["id"])
        return changed

    def _take_runner_events(self, job_id):
        """Stores the events the job's runner wrote (events.jsonl: an elastic job's
        membership changes) that the store does not hold yet; True if there were any."""
        path = os.path.join(self.jobdir(job_id), "events.jsonl")
        if not os.path.exists(path):
            return False
        seen = self._runner_events.get(job_id)
        if seen is None:  # after a restart: what an earlier run of the service stored
            seen = self.store.count_events(job_id, "membership")
        with open(path) as f:
            lines = f.readlines()
        added = 0
        for line in lines[seen:]:
            if not line.endswith("\n"):
                break  # the runner is writing it
            event = json.loads(line)
            self.store.add_event(job_id, event["kind"], event["detail"], event["time"])
            added += 1
        self._runner_events[job_id] = seen + added
        return added > 0

    def start_job(self, job, workers=None, reason=None):
        """Starts queued ``job`` (an elastic one with ``workers``; None: its minimum)."""
        self.store.set_state(job["id"], "starting")
        spec = job["spec"]
        workers = workers or spec["workers"][0]
        try:
            record = self.backend.start(job, self.jobdir(job["id"]), workers)
        except (OSError, ValueError) as e:
            self.store.set_state(job["id"], "failed", reason=f"could not start: {e}")
            return
        self.store.set_state(job["id"], "running", runner=record, workers=workers,
                             slots=workers * spec["nproc"] * spec["cpus"],
                             last_scaled=time.time())
        if reason:
            self.store.add_event(job["id"], "scaling",
                                 {"workers": workers, "from": 0, "reason": reason})

    def _finish(self, job, result):
        code = result.get("exit_code")
        if result.get("cancelled"):
            state = "cancelled"
        else:
            state = "succeeded" if code == 0 else "failed"
        tail = None
        if state == "failed":
            tail = "\n".join(tail_lines(os.path.join(self.jobdir(job["id"]), "log")))
        self.store.set_state(job["id"], state, exit_code=code, reason=result.get("reason"),
                             log_tail=tail, finished=result.get("finished", time.time()))
