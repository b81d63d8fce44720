"""Parameter-server jobs of the tests: servers (python -m skiff.distributed.ps.server) and
trainer scripts started as processes on 127.0.0.1, bounded in time, ended by kill()."""
import json
import os
import selectors
import signal
import subprocess
import sys
import time

import pytest

from jobs import job_env


class PsJob:
    """Servers started in ``folder`` (created; their logs go there) and the trainers the
    test starts, all ended by stop() or kill(). With ``checkpoints`` (a folder) the servers
    checkpoint every ``checkpoint_secs``."""

    def __init__(self, folder, shards=2, checkpoints=None, checkpoint_secs=30.0):
        self.dir = folder
        self.dir.mkdir()
        self.env = job_env()
        self.shards, self.checkpoints, self.checkpoint_secs = shards, checkpoints, checkpoint_secs
        self.servers, self.trainers, self.endpoints = [], [], []
        try:
            for shard in range(shards):
                self.servers.append(self._start_server(shard, 0))
            self.endpoints = [self._announced(p, shard) for shard, p in enumerate(self.servers)]
        except BaseException:
            self.kill()
            raise

    def _start_server(self, shard, port):
        command = [sys.executable, "-m", "skiff.distributed.ps.server", "--shard", str(shard),
                   "--shards", str(self.shards), "--host", "127.0.0.1", "--port", str(port)]
        if self.checkpoints:
            command += ["--checkpoint_dir", str(self.checkpoints), "--checkpoint_secs",
                        str(self.checkpoint_secs)]
        with open(self.dir / f"server{shard}.log", "ab") as log:
            return subprocess.Popen(command, env=self.env, stdout=subprocess.PIPE, stderr=log)

    def restart_server(self, shard):
        """Kills server ``shard`` (SIGKILL) and starts it again on its port."""
        self.servers[shard].kill()
        self.servers[shard].wait()
        self.servers[shard].stdout.close()
        port = int(self.endpoints[shard].rsplit(":", 1)[1])
        self.servers[shard] = self._start_server(shard, port)
        assert self._announced(self.servers[shard], shard) == self.endpoints[shard]

    def _announced(self, server, shard, timeout=30):
        """The endpoint of the server's one line 'skiff ps server I/N listening on H:P'."""
        with selectors.DefaultSelector() as sel:
            sel.register(server.stdout, selectors.EVENT_READ)
            assert sel.select(timeout), f"server {shard} did not start\n{self.logs()}"
        line = server.stdout.readline().decode()
        prefix = f"skiff ps server {shard}/{self.shards} listening on 127.0.0.1:"
        assert line.startswith(prefix), f"{line!r}\n{self.logs()}"
        return line.split()[-1]

    def start_trainers(self, name, trainers, arguments):
        """Starts ``trainers`` processes, trainer t running ``arguments(t, out)`` (a script
        and its arguments; it writes its JSON result to ``out``, NAME.t.json here, and its
        output goes to NAME.t.log); returns what finish() takes."""
        procs = []
        for t in range(trainers):
            out = self.dir / f"{name}.{t}.json"
            with open(self.dir / f"{name}.{t}.log", "wb") as log:
                procs.append((out, subprocess.Popen(
                    [sys.executable] + [str(a) for a in arguments(t, out)], env=self.env,
                    stdout=log, stderr=subprocess.STDOUT)))
        self.trainers += [p for _, p in procs]
        return procs

    def finish(self, procs, timeout=60):
        """Waits for the trainers; their JSON results, by trainer."""
        deadline = time.monotonic() + timeout
        for _, p in procs:
            try:
                p.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pytest.fail(f"trainers still running after {timeout} s\n{self.logs()}")
            assert p.returncode == 0, self.logs()
        return [json.loads(out.read_text()) for out, _ in procs]

    def stop(self, connection):
        """Stops the servers through the client; each exits with status 0."""
        connection.stop_servers()
        for p in self.servers:
            assert p.wait(timeout=15) == 0, self.logs()

    def kill(self):
        for p in self.servers + self.trainers:
            if p.poll() is None:
                p.kill()
                p.wait()
            if p.stdout:
                p.stdout.close()

    def logs(self):
        return "\n".join(f"--- {f.name} ---\n{f.read_text(errors='replace')[-3000:]}"
                         for f in sorted(self.dir.glob("*.log")))

    def wait_for_checkpoint(self, shard, timeout=30):
        """Waits until server ``shard`` has named a checkpoint."""
        latest = self.checkpoints / f"shard{shard}-of-{self.shards}" / "LATEST"
        deadline = time.monotonic() + timeout
        while not latest.exists():
            assert time.monotonic() < deadline, f"no checkpoint after {timeout} s\n{self.logs()}"
            time.sleep(0.05)


def launch(args, timeout):
    """Runs ``python -m skiff.distributed.launch ARGS`` in a session of its own: (exit code,
    output, whether processes of the job outlived the launcher); output is None when the
    launcher ran past ``timeout`` s. Whatever is left of the job is killed."""
    launcher = subprocess.Popen([sys.executable, "-m", "skiff.distributed.launch"] +
                                [str(a) for a in args], env=job_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    output, left = None, False
    try:
        output = launcher.communicate(timeout=timeout)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        pass
    finally:
        try:
            if output is not None:
                os.killpg(launcher.pid, 0)  # raises once no process of the job is left
                left = True
            os.killpg(launcher.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        launcher.communicate()
    return launcher.returncode, output, left


def describe(log_dir, output=""):
    """The launcher's output and the end of every log in ``log_dir``."""
    parts = [output]
    for f in sorted(log_dir.glob("*log.*")) if log_dir.exists() else []:
        parts.append(f"--- {f.name} ---\n{f.read_text(errors='replace')[-3000:]}")
    return "\n".join(parts)
