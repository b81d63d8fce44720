"""The parent side of a fuzz run: child processes over blocks of call indices, each call
watched against a wall-clock limit, a dead or stuck child's culprit passed to the tally and
the block resumed after it in a fresh child.

    tally = Tally(...)
    Runner(seed=1, deadline=time.monotonic() + 60, workers=1, call_timeout=10, only=None,
           tally=tally).run()"""

import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

import corpus

CHILD = pathlib.Path(__file__).resolve().parent / "child.py"
BLOCK = 2000  # calls a worker takes at a time (a child starts in about a second)
BATCH_SECONDS = 300.0  # a child older than this is ended after its current call (memory)
STARTUP_TIMEOUT = 120.0  # seconds for a child to import skiff and list the targets
STARTUP_RETRIES = 3  # a build being replaced under the run can fail an import for a while


class SetupError(Exception):
    """The children cannot start: skiff does not import, or the fuzzer itself is broken."""


class Runner:
    """Runs calls of one seed until a deadline (time.monotonic()) on workers children at once."""

    def __init__(self, seed, deadline, workers, call_timeout, only, tally):
        self.seed = seed
        self.deadline = deadline
        self.workers = workers
        self.call_timeout = call_timeout
        self.only = only
        self.tally = tally
        self._next_index = 0
        self._lock = threading.Lock()
        self._setup_error = None

    def run(self):
        """Fuzzes until the deadline; raises SetupError when no child could start."""
        threads = [threading.Thread(target=self._work, daemon=True) for _ in range(self.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self._setup_error is not None:
            raise SetupError(self._setup_error)

    def _work(self):
        while time.monotonic() < self.deadline and self._setup_error is None:
            with self._lock:
                first = self._next_index
                self._next_index += BLOCK
            end = first + BLOCK
            while first < end and time.monotonic() < self.deadline:
                first = self._batch(first, end - first)
                if first is None:
                    return

    def _batch(self, first, count):
        """Runs calls first.. in one child until it ends; the index to go on from, or None
        after a setup failure."""
        for attempt in range(STARTUP_RETRIES):
            batch = _Batch(self, first, count)
            result = batch.run()
            if result == "no-targets":
                self._setup_error = f"no public callable matches --only {self.only!r}"
                return None
            if result != "no-start":
                return result
            time.sleep(5 * (attempt + 1))
        self._setup_error = "the fuzzing child did not start:\n" + batch.stderr[-3000:]
        return None


class _Batch:
    """One child process and the events it reports."""

    def __init__(self, runner, first, count):
        self.runner = runner
        self.first = first
        self.count = count
        self.started = []  # start events of this child, in order
        self.in_flight = None
        self.in_flight_since = 0.0
        self.last_index = first - 1  # the last call that ended
        self.done = False  # the child reported the whole block made
        self.born = time.monotonic()
        self.stderr_file = tempfile.TemporaryFile()
        self.stderr = ""

    def run(self):
        """The index to resume from (first + count when the block is done), "no-start" or
        "no-targets"."""
        runner = self.runner
        read_end, write_end = os.pipe()
        command = [sys.executable, str(CHILD), "--seed", str(runner.seed), "--first",
                   str(self.first), "--count", str(self.count), "--call-timeout",
                   str(runner.call_timeout), "--events-fd", str(write_end)]
        if runner.only:
            command += ["--only", runner.only]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=self.stderr_file, env=corpus.child_environment(),
                                   pass_fds=(write_end,),
                                   start_new_session=True)
        os.close(write_end)
        try:
            return self._follow(process, read_end)
        finally:
            os.close(read_end)
            if process.poll() is None:
                _kill(process)
            self.stderr_file.seek(0)
            self.stderr = self.stderr_file.read().decode(errors="replace")
            self.stderr_file.close()

    def _follow(self, process, read_end):
        runner = self.runner
        buffer = b""
        ready = False
        last_event_at = self.born = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= runner.deadline:
                _kill(process)
                return self.first + self.count
            if ready and self.in_flight is None and now - self.born > BATCH_SECONDS:
                _kill(process)  # between calls: none is lost
                return self.last_index + 1
            limit = runner.call_timeout if ready else STARTUP_TIMEOUT
            waited = now - (self.in_flight_since if self.in_flight else last_event_at)
            if waited >= limit:
                _kill(process)
                if not ready:
                    return "no-start"
                return self._died("hang", f"over {limit:g} s")
            wait = min(limit - waited, runner.deadline - now, 1.0)
            readable, _, _ = select.select([read_end], [], [], max(wait, 0.01))
            if not readable:
                continue
            data = os.read(read_end, 1 << 16)
            if not data:  # the child closed the pipe: it ended
                process.wait()
                if not ready:
                    return "no-start"
                if self.in_flight is None and self.done:
                    return self.first + self.count
                return self._died("crash", corpus.describe_exit(process.returncode) or
                                  "exit 0 mid-call")
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                event = json.loads(line)
                if event["ev"] == "ready":
                    ready = True
                    if event["targets"] == 0:
                        return "no-targets"
                elif event["ev"] == "start":
                    self.in_flight = event
                    self.in_flight_since = time.monotonic()
                    self.started.append(event)
                elif event["ev"] == "end":
                    runner.tally.record_end(self.in_flight, event)
                    self.in_flight = None
                    self.last_index = event["i"]
                elif event["ev"] == "done":
                    self.done = True
                last_event_at = time.monotonic()

    def _died(self, how, detail):
        """Hands the in-flight call to the tally as a crash or hang; the index after it."""
        culprit = self.in_flight
        self.stderr_file.seek(0)
        stderr = self.stderr_file.read().decode(errors="replace")
        if culprit is None:  # stuck or dead between calls: in the fuzzer's own code
            self.runner.tally.record_fuzzer_error(self.last_index + 1, how, detail, stderr)
            return self.last_index + 2
        self.runner.tally.record_death(culprit, how, detail, stderr, self.started[:-1])
        return culprit["i"] + 1


def _kill(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
