"""A private Redis server on 127.0.0.1 for a job or a test that was not given one
(``--redis HOST:PORT``): Debian's redis-server, its data in a temporary folder."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

__all__ = ["LocalRedis"]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalRedis:
    """Starts ``redis-server`` on a free 127.0.0.1 port; ``address`` is HOST:PORT.

    ``appendonly=True`` keeps an append-only file fsynced on every write
    (``appendfsync always``): what the server acknowledged survives a kill -9 and a
    restart. ``kill()`` ends the server with SIGKILL, ``restart()`` starts it again on the
    same port and data, ``stop()`` (or leaving the ``with`` block) ends it and deletes the
    data."""

    def __init__(self, appendonly=False, binary="redis-server", start_timeout=20.0):
        self.binary = shutil.which(binary) or binary
        if not os.path.exists(self.binary):
            raise RuntimeError("skiff.io: no redis-server binary found; install Debian's "
                               "redis-server (scripts/setup.sh does) or pass --redis HOST:PORT")
        self.appendonly = appendonly
        self.data_dir = tempfile.mkdtemp(prefix="skiff-redis-")
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.start_timeout = start_timeout
        self.process = None
        self.start()

    def start(self):
        cmd = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port),
               "--dir", self.data_dir, "--save", "", "--protected-mode", "yes",
               "--logfile", os.path.join(self.data_dir, "redis.log")]
        if self.appendonly:
            cmd += ["--appendonly", "yes", "--appendfsync", "always"]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        deadline = time.monotonic() + self.start_timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = os.path.join(self.data_dir, "redis.log")
                tail = open(log, errors="replace").read()[-2000:] if os.path.exists(log) else ""
                self.stop()
                raise RuntimeError(f"redis-server did not start on {self.address}:\n{tail}")
            time.sleep(0.02)

    def _answers(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def restart(self):
        self.kill()
        self.start()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
