"""skiff board on a job's board logdir, started by the service when someone asks for it
(`POST /api/jobs/ID/board`): one `python -m skiff.board` process per job, on 127.0.0.1 and
a free port, stopped when nobody has asked for it for ``idle`` seconds, when more than
``most`` boards would run (the longest unused goes), or when the service stops.

    boards = Boards(idle=600, most=4)
    url = boards.open(job_id, logdir, log) # starts it (its output to the file ``log``), or
                                           # returns the running one's URL
    boards.reap()                          # stops the idle ones (the service's tick)
    boards.close()
"""
import os
import re
import subprocess
import sys
import time

__all__ = ["Boards", "BoardError"]

START_TIMEOUT = 60.0


class BoardError(RuntimeError):
    pass


class _Board:
    def __init__(self, process, url):
        self.process, self.url = process, url
        self.used = time.monotonic()


class Boards:
    def __init__(self, idle=600.0, most=4):
        self.idle, self.most = idle, most
        self._boards = {}  # job id -> _Board

    def open(self, job_id, logdir, log_path):
        """The URL of the job's board, starting it when it is not running (its output to
        ``log_path``, where its URL is read from)."""
        board = self._boards.get(job_id)
        if board is not None and board.process.poll() is None:
            board.used = time.monotonic()
            return board.url
        if not os.path.isdir(logdir):
            raise BoardError("the job has written no board logs yet")
        while len(self._boards) >= self.most:
            oldest = min(self._boards, key=lambda j: self._boards[j].used)
            self._stop(oldest)
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "skiff.board", "--logdir", logdir, "--host",
                 "127.0.0.1", "--port", "0"], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            with open(log_path) as f:
                found = re.search(r"(http://127\.0\.0\.1:\d+/?)", f.read())
            if found:
                self._boards[job_id] = _Board(process, found.group(1))
                return found.group(1)
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
        process.wait()
        raise BoardError(f"skiff board did not start (its output: {log_path})")

    def reap(self):
        """Stops the boards nobody asked for in ``idle`` seconds, and forgets ended ones."""
        now = time.monotonic()
        for job_id, board in list(self._boards.items()):
            if board.process.poll() is not None or now - board.used > self.idle:
                self._stop(job_id)

    def _stop(self, job_id):
        board = self._boards.pop(job_id)
        if board.process.poll() is None:
            board.process.terminate()
            try:
                board.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                board.process.kill()
                board.process.wait()

    def close(self):
        for job_id in list(self._boards):
            self._stop(job_id)
