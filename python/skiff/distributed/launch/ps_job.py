"""The launcher's parameter-server mode: the same script runs as each server and each
trainer of the job, on this machine (127.0.0.1), each told its part in Paddle's variables.

    python -m skiff.distributed.launch --server_num 2 --trainer_num 2 train.py
    python -m skiff.distributed.launch --servers 127.0.0.1:7001,127.0.0.1:7002 \\
        --trainer_num 2 train.py

Server I gets TRAINING_ROLE=PSERVER, POD_IP and PADDLE_PORT (its endpoint), trainer I
TRAINING_ROLE=TRAINER and PADDLE_TRAINER_ID=I; all get PADDLE_PSERVERS_IP_PORT_LIST and
PADDLE_TRAINERS_NUM (and PADDLE_TRAINER_ENDPOINTS with --trainers), and OMP_NUM_THREADS=1
unless it is set. Their output goes to LOG_DIR/serverlog.I and LOG_DIR/workerlog.I
(trainer 0's is shown here too).

The job succeeds when every trainer exits with status 0 (the trainers stop the servers
with fleet.stop_worker; servers still running SERVER_GRACE_SECS later are terminated). A
trainer that fails ends the job with its exit code. A server that exits with another status
than 0, or is killed, ends it too, unless the servers keep checkpoints
(--ps_checkpoint_dir: SKIFF_PS_CHECKPOINT_DIR and SKIFF_PS_CHECKPOINT_SECS in their
environment, which fleet.run_server reads): then it is started again on its endpoint, up to
--max_restarts times, resumes from its last checkpoint and the trainers replay what came
after it.
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from ..fleet.role_maker import parse_endpoints
from .echo import echo_log

__all__ = ["PsJob", "job_endpoints"]

SERVER_GRACE_SECS = 10.0  # servers may take this long to exit after the last trainer
STOP_SECS = 10.0          # from SIGTERM to SIGKILL when the launcher ends processes
HOST = "127.0.0.1"

# Variables of an enclosing job that must not leak into this one's processes.
_JOB_VARIABLES = ("TRAINING_ROLE", "POD_IP", "PADDLE_PORT", "PADDLE_PSERVERS_IP_PORT_LIST",
                  "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ID", "PADDLE_TRAINER_ENDPOINTS",
                  "PADDLE_CURRENT_ENDPOINT", "PADDLE_LOCAL_RANK", "SKIFF_RANK",
                  "SKIFF_WORLD_SIZE", "SKIFF_LOCAL_RANK", "SKIFF_ETCD", "SKIFF_JOB_ID")


def _free_ports(n):
    """``n`` distinct ports free on 127.0.0.1 now."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind((HOST, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _parse(text, flag):
    endpoints = parse_endpoints(text, f"launch: {flag}")
    for e in endpoints:
        if e.rpartition(":")[0] != HOST:
            raise ValueError(f"launch: {flag}: {e} is not on this machine: the launcher "
                             f"starts every server and trainer here, on {HOST}")
    return endpoints


def job_endpoints(server_num, trainer_num, servers, trainers):
    """(server endpoints, trainer endpoints) from the launcher's options: counts, comma
    lists, or both when they agree. Servers default to free ports on 127.0.0.1; trainers
    without --trainers have no endpoint (None each)."""
    lists = {}
    for flag, count, text in (("--servers", server_num, servers),
                              ("--trainers", trainer_num, trainers)):
        given = _parse(text, flag) if text else []
        if count is not None and count < 1:
            raise ValueError(f"launch: {flag[:-1]}_num must be at least 1, got {count}")
        if given and count is not None and count != len(given):
            raise ValueError(f"launch: {flag} lists {len(given)} endpoints but "
                             f"{flag[:-1]}_num is {count}")
        lists[flag] = (given, count if count is not None else len(given) or 1)
    (server_list, server_count), (trainer_list, trainer_count) = lists.values()
    server_list = server_list or [f"{HOST}:{p}" for p in _free_ports(server_count)]
    both = set(server_list) & set(trainer_list)
    if both:
        raise ValueError(f"launch: {', '.join(sorted(both))} is both a server's and a "
                         f"trainer's endpoint")
    return server_list, trainer_list if trainer_list else [None] * trainer_count


class PsJob:
    """The processes of one parameter-server job: start() them, wait() for the outcome."""

    def __init__(self, script, script_args, servers, trainers, log_dir, checkpoint_dir="",
                 checkpoint_secs=30.0, max_restarts=0):
        self.script, self.script_args, self.log_dir = script, list(script_args), log_dir
        self.checkpoint_dir, self.max_restarts, self.restarts = checkpoint_dir, max_restarts, 0
        self.servers_at, self.trainers_at = servers, trainers
        self.servers, self.trainers = [None] * len(servers), [None] * len(trainers)
        base = {k: v for k, v in os.environ.items() if k not in _JOB_VARIABLES}
        # Every process shares this machine's cores: OpenMP threads spinning in several
        # processes at once slow each down many times (as torchrun, one thread unless set).
        base.setdefault("OMP_NUM_THREADS", "1")
        base.update({"PADDLE_PSERVERS_IP_PORT_LIST": ",".join(servers),
                     "PADDLE_TRAINERS_NUM": str(len(trainers))})
        if all(trainers):
            base["PADDLE_TRAINER_ENDPOINTS"] = ",".join(trainers)
        base.pop("SKIFF_PS_CHECKPOINT_DIR", None)
        if checkpoint_dir:
            base.update({"SKIFF_PS_CHECKPOINT_DIR": os.path.abspath(checkpoint_dir),
                         "SKIFF_PS_CHECKPOINT_SECS": str(float(checkpoint_secs))})
        self._base_env = base

    def _start(self, kind, index, variables):
        env = dict(self._base_env, **variables)
        os.makedirs(self.log_dir, exist_ok=True)
        log = open(self.log_path(kind, index), "ab" if self.restarts else "wb")
        try:
            return subprocess.Popen([sys.executable, "-u", self.script] + self.script_args,
                                    env=env, stdout=log, stderr=subprocess.STDOUT)
        finally:
            log.close()

    def log_path(self, kind, index):
        """LOG_DIR/serverlog.I for server I, LOG_DIR/workerlog.I for trainer I."""
        name = "serverlog" if kind == "server" else "workerlog"
        return os.path.join(self.log_dir, f"{name}.{index}")

    def start_server(self, index):
        """Starts (or starts again) server ``index`` on its endpoint."""
        _, _, port = self.servers_at[index].rpartition(":")
        self.servers[index] = self._start("server", index, {
            "TRAINING_ROLE": "PSERVER", "POD_IP": HOST, "PADDLE_PORT": port,
            "PADDLE_CURRENT_ENDPOINT": self.servers_at[index]})

    def start_trainer(self, index):
        variables = {"TRAINING_ROLE": "TRAINER", "PADDLE_TRAINER_ID": str(index),
                     "POD_IP": HOST}
        if self.trainers_at[index]:
            variables["PADDLE_PORT"] = self.trainers_at[index].rpartition(":")[2]
            variables["PADDLE_CURRENT_ENDPOINT"] = self.trainers_at[index]
        self.trainers[index] = self._start("trainer", index, variables)

    def start(self):
        for i in range(len(self.servers)):
            self.start_server(i)
        for i in range(len(self.trainers)):
            self.start_trainer(i)

    def server_exited(self, index, code):
        """Called when server ``index`` exits with ``code`` while trainers run; returns the
        job's exit code, or None to go on. A server stopped by the trainers exits 0; one
        that fails is started again when the servers keep checkpoints and restarts are
        left, else the job fails."""
        if code == 0:
            return None
        if self.checkpoint_dir and self.restarts < self.max_restarts:
            self.restarts += 1
            self._say(f"server {index} exited with code {code}; starting it again from its "
                      f"last checkpoint ({self.restarts} of {self.max_restarts} restarts; "
                      f"its log: {self.log_path('server', index)})")
            self.start_server(index)
            return None
        why = (f"the job has used its {self.max_restarts} restarts" if self.checkpoint_dir
               else "the servers keep no checkpoints (--ps_checkpoint_dir)")
        self._say(f"server {index} exited with code {code} and {why}; stopping the job (its "
                  f"log: {self.log_path('server', index)})")
        return _exit_code(code)

    def wait(self):
        """Runs the job to its end: the exit code (0: every trainer succeeded)."""
        ended = set()  # servers that exited
        while True:
            for i, p in enumerate(self.trainers):
                code = p.poll()
                if code not in (None, 0):
                    self._say(f"trainer {i} exited with code {code}; stopping the job (its "
                              f"log: {self.log_path('trainer', i)})")
                    return _exit_code(code)
            for i, p in enumerate(self.servers):
                code = p.poll()
                if code is not None and i not in ended:
                    ended.add(i)
                    outcome = self.server_exited(i, code)
                    if outcome is not None:
                        return outcome
                    if self.servers[i] is not p:  # restarted
                        ended.discard(i)
            if all(p.poll() == 0 for p in self.trainers):
                return self._let_servers_stop()
            time.sleep(0.1)

    def _let_servers_stop(self):
        deadline = time.monotonic() + SERVER_GRACE_SECS
        while time.monotonic() < deadline and any(p.poll() is None for p in self.servers):
            time.sleep(0.1)
        for i, p in enumerate(self.servers):
            code = p.poll()
            if code not in (None, 0):
                self._say(f"server {i} exited with code {code} after the trainers finished "
                          f"(its log: {self.log_path('server', i)})")
                return _exit_code(code)
        running = [str(i) for i, p in enumerate(self.servers) if p.poll() is None]
        if running:
            self._say(f"server(s) {', '.join(running)} still running {SERVER_GRACE_SECS:.0f} s "
                      f"after the trainers finished (no fleet.stop_worker()?); terminating")
        return 0

    def stop(self):
        """Ends every process still running: SIGTERM, then SIGKILL after STOP_SECS."""
        alive = [p for p in self.servers + self.trainers if p is not None and p.poll() is None]
        for p in alive:
            p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECS
        for p in alive:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    @staticmethod
    def _say(message):
        print(f"launch: {message}", file=sys.stderr, flush=True)


def _exit_code(code):
    return code if code > 0 else 128 - code


def run(script, script_args, servers, trainers, log_dir, checkpoint_dir="", checkpoint_secs=30.0,
        max_restarts=0):
    """Runs the job, showing trainer 0's log; its exit code. SIGTERM to the launcher ends
    every process of the job."""
    job = PsJob(script, script_args, servers, trainers, log_dir, checkpoint_dir,
                checkpoint_secs, max_restarts)
    stop = threading.Event()
    echo = threading.Thread(target=echo_log, args=(job.log_path("trainer", 0), stop),
                            daemon=True)

    def terminated(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        job.start()
        echo.start()
        return job.wait()
    finally:
        job.stop()
        stop.set()
        if echo.is_alive():
            echo.join(timeout=5)
        signal.signal(signal.SIGTERM, previous)
