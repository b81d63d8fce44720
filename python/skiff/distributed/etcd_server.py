"""A private etcd server on 127.0.0.1 for a job or a test that was not given one."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from .. import _C

__all__ = ["LocalEtcd", "free_port"]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalEtcd:
    """Starts ``etcd`` (Debian's etcd-server) listening on free 127.0.0.1 ports, with its
    data in a temporary folder; ``endpoint`` is HOST:PORT. ``stop()`` (or leaving the
    ``with`` block) ends it and deletes the data. ``restart()`` stops it and starts it
    again on the same port and data (to test that clients live through it)."""

    def __init__(self, binary="etcd", start_timeout=20.0):
        self.binary = shutil.which(binary) or binary
        if not os.path.exists(self.binary):
            raise RuntimeError("skiff.distributed: no etcd binary found; install Debian's "
                               "etcd-server (scripts/setup.sh does) or pass --etcd HOST:PORT")
        self.data_dir = tempfile.mkdtemp(prefix="skiff-etcd-")
        self.client_port = free_port()
        self.peer_port = free_port()
        self.endpoint = f"127.0.0.1:{self.client_port}"
        self.start_timeout = start_timeout
        self.process = None
        self.start()

    def start(self):
        url = f"http://{self.endpoint}"
        peer = f"http://127.0.0.1:{self.peer_port}"
        cmd = [self.binary, "--name", "skiff", "--data-dir", os.path.join(self.data_dir, "data"),
               "--listen-client-urls", url, "--advertise-client-urls", url,
               "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
               "--initial-cluster", f"skiff={peer}", "--log-level", "error"]
        log = open(os.path.join(self.data_dir, "etcd.log"), "ab")
        self.process = subprocess.Popen(cmd, stdout=log, stderr=log, start_new_session=True)
        log.close()
        client = _C.EtcdClient(self.endpoint, timeout=1.0)
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                client.get("/skiff/ping")
                return
            except _C.Error:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    with open(os.path.join(self.data_dir, "etcd.log"), errors="replace") as f:
                        tail = f.read()[-2000:]
                    self.stop()
                    raise RuntimeError(f"etcd did not start on {self.endpoint}:\n{tail}")
                time.sleep(0.05)

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
