"""The log directory the board serves: its runs (every folder holding ``*tfevents*``
files, named by its path relative to the logdir, "." for the logdir itself), each read
through one skiff._C.RunLog reloaded at most once a second when a request needs it,
plus the program files (``*.skmodel``) and projector configs found alongside.

Every path handed out resolves inside the logdir (realpath check); symlinked folders
are not followed, and a run holding an event file that leads out of the logdir is not
served. Runs or a logdir that vanish drop out at the next scan.

    logdir = LogDir("runs")
    for name, run in logdir.runs().items():
        run.refresh()                          # reads what was appended, if due
        print(name, run.query(lambda log: log.tags()))
"""
import collections
import os
import threading
import time

from .. import _C

__all__ = ["LogDir", "Run", "EVENT_FILE_MARK", "PROGRAM_SUFFIX", "PROJECTOR_CONFIG"]

EVENT_FILE_MARK = "tfevents"
PROGRAM_SUFFIX = ".skmodel"
PROJECTOR_CONFIG = "projector_config.pbtxt"


def _inside(path, root):
    """True when realpath ``path`` is ``root`` or lies below it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _folder_id(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class Run:
    """One run: a folder of event files read by a skiff._C.RunLog. All access to the
    RunLog goes through ``refresh`` and ``query``, which hold the run's lock."""

    def __init__(self, logdir, name, folder):
        self.name = name
        self.folder = folder
        self.folder_id = _folder_id(folder)
        self._logdir = logdir
        self._log = _C.RunLog(folder)
        self._lock = threading.Lock()
        self._last_reload = None

    def refresh(self, min_interval=1.0):
        """Reloads the run's event files unless that happened less than
        ``min_interval`` seconds ago; reader warnings go to the logdir's list."""
        with self._lock:
            now = time.monotonic()
            if self._last_reload is not None and now - self._last_reload < min_interval:
                return
            self._last_reload = now
            problem = self._logdir.unsafe_event_file(self.folder)
            if problem:
                self._logdir.warn(self.name, problem)
                return
            try:
                self._log.reload()
            except Exception as e:  # a folder removed under the reader, for one
                self._logdir.warn(self.name, f"reload failed: {e}")
            for message in self._log.warnings():
                self._logdir.warn(self.name, message)

    def query(self, fn):
        """``fn(run_log)`` under the run's lock (the reader is not shared between threads)."""
        with self._lock:
            return fn(self._log)


class LogDir:
    """The runs, programs and projector configs under ``path``, rescanned at most every
    ``scan_interval`` seconds; runs reload at most every ``reload_interval`` seconds."""

    def __init__(self, path, reload_interval=1.0, scan_interval=1.0, max_warnings=200):
        self.path = os.path.abspath(path)
        self.reload_interval = reload_interval
        self.scan_interval = scan_interval
        self._lock = threading.Lock()
        self._last_scan = None
        self._root = os.path.realpath(self.path)
        self._runs = {}
        self._programs = {}
        self._projectors = {}
        self._warnings = collections.deque(maxlen=max_warnings)
        self._warned = set()

    @property
    def root(self):
        """The logdir's real path as of the last scan."""
        return self._root

    def resolve(self, path):
        """The real path of ``path`` when it is a regular file or a folder inside the
        logdir, else None (so a FIFO or device is never opened)."""
        real = os.path.realpath(path)
        ok = _inside(real, self._root) and (os.path.isfile(real) or os.path.isdir(real))
        return real if ok else None

    def unsafe_event_file(self, folder):
        """A message when the run folder (or one of its event files) now leads out of
        the logdir or is gone, else None."""
        if self.resolve(folder) is None:
            return "the run folder is gone or leads outside the logdir"
        try:
            entries = list(os.scandir(folder))
        except OSError as e:
            return f"cannot list the run folder: {e.strerror}"
        for entry in entries:
            if EVENT_FILE_MARK in entry.name:
                problem = self._bad_event_file(entry.path)
                if problem:
                    return problem + "; run not read"
        return None

    def _bad_event_file(self, path):
        """Why the reader must not open event file ``path`` (outside the logdir, or not
        a regular file), or None."""
        name = os.path.basename(path)
        if not _inside(os.path.realpath(path), self._root):
            return f"event file {name} leads outside the logdir"
        if not os.path.isfile(path):
            return f"event file {name} is not a regular file"
        return None

    def warn(self, run, message):
        """Adds a warning shown by /api/warnings."""
        self._warnings.append({"run": run, "message": message})

    def _warn_once(self, run, message):
        if (run, message) not in self._warned:
            self._warned.add((run, message))
            self.warn(run, message)

    def warnings(self):
        """Recent warnings, oldest first: [{"run", "message"}]."""
        return list(self._warnings)

    def scan(self, force=False):
        """Rediscovers runs, programs and projector configs unless the last scan is
        younger than ``scan_interval`` seconds."""
        with self._lock:
            now = time.monotonic()
            if not force and self._last_scan is not None and \
                    now - self._last_scan < self.scan_interval:
                return
            self._last_scan = now
            self._root = os.path.realpath(self.path)
            found_runs, programs, projectors = self._walk()
            runs = {}
            for name, folder in found_runs.items():
                old = self._runs.get(name)
                if old is not None and old.folder_id == _folder_id(folder):
                    runs[name] = old
                else:
                    runs[name] = Run(self, name, folder)
            self._runs, self._programs, self._projectors = runs, programs, projectors

    def _walk(self):
        runs, programs, projectors = {}, {}, {}
        root = self._root
        if not os.path.isdir(root):
            return runs, programs, projectors
        for folder, dirs, files in os.walk(root, followlinks=False):
            dirs.sort()
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            events = [f for f in files if EVENT_FILE_MARK in f]
            problems = [p for p in (self._bad_event_file(os.path.join(folder, f))
                                    for f in events) if p]
            if problems:
                self._warn_once(rel, problems[0] + "; run not served")
            elif events:
                runs[rel] = folder
            for f in files:
                path = os.path.join(folder, f)
                if self.resolve(path) is None:
                    continue
                if f.endswith(PROGRAM_SUFFIX) and len(f) > len(PROGRAM_SUFFIX):
                    programs[_program_key(rel, f)] = path
                elif f == PROJECTOR_CONFIG:
                    projectors[rel] = path
        return runs, programs, projectors

    def runs(self):
        """{name: Run} after a (throttled) scan."""
        self.scan()
        return dict(self._runs)

    def run(self, name):
        """The run called ``name``, or None. Names come only from discovery, so no path
        is ever built from ``name``."""
        return self.runs().get(name)

    def programs(self):
        """{(run, name): path of the .skmodel file} after a (throttled) scan."""
        self.scan()
        return dict(self._programs)

    def projectors(self):
        """{run: path of its projector_config.pbtxt} after a (throttled) scan."""
        self.scan()
        return dict(self._projectors)


def _program_key(rel, filename):
    """(run, name) of a program file: LogWriter.add_graph writes <run>/programs/<name>.skmodel;
    any other file is named by its stem within its own folder."""
    name = filename[:-len(PROGRAM_SUFFIX)]
    head, tail = rel.rsplit("/", 1) if "/" in rel else (".", rel)
    if tail == "programs":
        return head, name
    return rel, name
