"""A job service for the cloud tests: `python -m skiff.cloud serve` on 127.0.0.1 (a free
port), a root in a temporary folder, stopped (and its jobs with it) when the test ends."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from skiff.cloud import Client
from skiff.cloud.store import Store

PYTHONPATH = os.pathsep.join(p for p in sys.path if p)


class Service:
    def __init__(self, root, *options):
        self.root, self.options = str(root), list(options)
        self.process, self.url, self.port = None, None, 0

    def start(self, port=None):
        """Starts the service (on ``port``, else the last one, else a free one)."""
        port = self.port if port is None else port
        env = dict(os.environ, PYTHONPATH=PYTHONPATH)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "skiff.cloud", "serve", "--root", self.root,
             "--port", str(port), *self.options],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            found = re.search(r"serving .* at (http://127\.0\.0\.1:(\d+))", line)
            if found:
                self.url, self.port = found.group(1), int(found.group(2))
                return self
            if not line and self.process.poll() is not None:
                break
        raise RuntimeError(f"the service did not start: {line}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def token(self, user, admin=False, **quota):
        store = Store(os.path.join(self.root, "cloud.db"))
        try:
            return store.create_user(user, admin=admin, **quota)
        finally:
            store.close()

    def client(self, user, admin=False, **quota):
        return Client(self.url, self.token(user, admin=admin, **quota))

    def kill_jobs(self):
        """Stops every job's runner (and its processes) that the tests left running."""
        jobs = os.path.join(self.root, "jobs")
        for name in os.listdir(jobs) if os.path.isdir(jobs) else ():
            if os.path.exists(os.path.join(jobs, name, "exit.json")):
                continue
            store = Store(os.path.join(self.root, "cloud.db"))
            job = store.job(int(name))
            store.close()
            runner = (job or {}).get("runner") or {}
            if not runner.get("pid"):
                continue
            try:  # the runner stops its processes, then ends
                os.kill(runner["pid"], signal.SIGTERM)
            except ProcessLookupError:
                continue
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not os.path.exists(
                    os.path.join(jobs, name, "exit.json")):
                time.sleep(0.1)


@pytest.fixture
def service_factory(tmp_path):
    made = []

    def make(*options, root=None):
        s = Service(root or tmp_path / f"root{len(made)}", *options)
        made.append(s)
        return s.start()

    yield make
    for s in made:
        s.stop()
        s.kill_jobs()


@pytest.fixture
def service(service_factory):
    return service_factory("--slots", "4")

