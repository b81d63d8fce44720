"""Starts a data-parallel job's workers on this node, like Paddle's launcher and torchrun:

    python -m skiff.distributed.launch --nproc_per_node 2 train.py --epochs 3
    python -m skiff.distributed.launch --nnodes 2 --etcd 10.0.0.5:2379 --job_id j1 \\
        --host 10.0.0.7 --nproc_per_node 4 train.py

or a parameter-server job's servers and trainers on this machine (ps_job.py):

    python -m skiff.distributed.launch --server_num 2 --trainer_num 2 train.py

Each worker gets its place in the environment (SKIFF_RANK, SKIFF_WORLD_SIZE,
SKIFF_LOCAL_RANK, SKIFF_ETCD, SKIFF_JOB_ID, SKIFF_HOST, and Paddle's PADDLE_TRAINER_ID /
PADDLE_TRAINERS_NUM), OMP_NUM_THREADS (unless set: the node's cores over its workers)
and writes its output to LOG_DIR/workerlog.RANK (rank 0's is also shown here). Nodes meet in etcd: each launcher takes the first free node number under
/skiff/JOB/nodes/ and waits for the others. Without --etcd the launcher starts a private
etcd on 127.0.0.1 (one node only). The job's exit code is the first failing worker's
(the others are then stopped), or 0.

Parameter-server mode is chosen by any of --server_num, --trainer_num (or Paddle's
--worker_num), --servers, --trainers (or --workers).
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

from ... import _C
from ..etcd_server import LocalEtcd
from ..lease import KeptLease
from . import ps_job
from .echo import echo_log

__all__ = ["launch", "main"]


def _parse_nnodes(text):
    try:
        parts = [int(p) for p in text.split(":")]
    except ValueError:
        raise ValueError(f"launch: --nnodes must be N or MIN:MAX, got {text!r}") from None
    low, high = (parts[0], parts[0]) if len(parts) == 1 else parts
    if len(parts) > 2 or low < 1 or high < low:
        raise ValueError(f"launch: --nnodes {text}: needs 1 <= MIN <= MAX")
    return low, high


def _parser():
    # No abbreviations: the script's own options (--worker, --step) must not be taken
    # for the launcher's (--worker_num, --steps_per_...).
    p = argparse.ArgumentParser(prog="python -m skiff.distributed.launch",
                                description="Starts the workers of a data-parallel job.",
                                allow_abbrev=False)
    p.add_argument("--nnodes", default="1", help="nodes in the job: N or MIN:MAX (default 1)")
    p.add_argument("--nproc_per_node", type=int, default=1, help="workers on this node")
    p.add_argument("--etcd", default="", help="HOST:PORT of the job's etcd (default: start "
                   "one on 127.0.0.1; one node only)")
    p.add_argument("--job_id", default="", help="the job's name in etcd (default: random)")
    p.add_argument("--host", default="127.0.0.1",
                   help="this node's address, as the other nodes reach it")
    p.add_argument("--log_dir", default="log", help="where workerlog.RANK files go")
    p.add_argument("--no_echo", action="store_true",
                   help="do not copy rank 0's log to this output (a job service that reads "
                        "the workerlog files itself)")
    p.add_argument("--rendezvous_timeout", type=float, default=300.0,
                   help="seconds to wait for the other nodes")
    p.add_argument("--comm_timeout", type=float, default=60.0,
                   help="seconds a collective waits for its peers before failing")
    p.add_argument("--max_restarts", type=int, default=3,
                   help="elastic jobs (--nnodes MIN:MAX): how many times a failed worker is "
                        "replaced; the replacement joins the running job. Parameter-server "
                        "jobs with --ps_checkpoint_dir: how many times a failed server is "
                        "started again")
    ps = p.add_argument_group("parameter-server mode (every process on 127.0.0.1)")
    ps.add_argument("--server_num", type=int, help="servers to start (default: 1, or as "
                    "many as --servers lists)")
    ps.add_argument("--trainer_num", "--worker_num", dest="trainer_num", type=int,
                    help="trainers to start (default: 1, or as many as --trainers lists)")
    ps.add_argument("--servers", default="", help="the servers' endpoints, "
                    "127.0.0.1:PORT,... (default: free ports)")
    ps.add_argument("--trainers", "--workers", dest="trainers", default="",
                    help="the trainers' endpoints, 127.0.0.1:PORT,... (given to the trainers "
                         "as PADDLE_TRAINER_ENDPOINTS)")
    ps.add_argument("--ps_checkpoint_dir", default="",
                    help="the servers checkpoint into this folder, and a server that dies is "
                         "started again from its last checkpoint (default: none; a dead server "
                         "ends the job)")
    ps.add_argument("--ps_checkpoint_secs", type=float, default=30.0,
                    help="seconds between a server's checkpoints (0: at every step or push)")
    p.add_argument("script", help="the training script")
    p.add_argument("script_args", nargs=argparse.REMAINDER)
    return p


class _Node:
    """This node's place in the job: registered under /skiff/JOB/nodes/ with a kept lease."""

    def __init__(self, etcd, job_id, host, nproc, max_nodes, ttl=10):
        self.etcd = etcd
        self.prefix = f"/skiff/{job_id}/nodes/"
        self.lease = KeptLease(etcd, ttl)
        self.index = None
        for i in range(max_nodes):
            if etcd.create(f"{self.prefix}{i}", f"{host} {nproc}", self.lease.id):
                self.index = i
                break
        if self.index is None:
            self.lease.revoke()
            raise RuntimeError(f"launch: job {job_id} already has its {max_nodes} nodes")

    def wait_for(self, count, timeout):
        deadline = time.monotonic() + timeout
        while True:
            nodes = self.etcd.get_prefix(self.prefix)
            if len(nodes) >= count:
                return [n.value.split() for n in sorted(nodes, key=lambda n: int(
                    n.key[len(self.prefix):]))][:count]
            if time.monotonic() > deadline:
                raise TimeoutError(f"launch: {len(nodes)} of {count} nodes came within "
                                   f"{timeout:.0f} s (job {self.prefix.split('/')[2]})")
            time.sleep(0.2)

    def leave(self):
        self.lease.revoke()


def _start_worker(args, rank, local_rank, world_size, endpoint, job_id):
    env = dict(os.environ)
    env.update({
        "SKIFF_RANK": str(rank), "SKIFF_WORLD_SIZE": str(world_size),
        "SKIFF_LOCAL_RANK": str(local_rank), "SKIFF_ETCD": endpoint, "SKIFF_JOB_ID": job_id,
        "SKIFF_HOST": args.host, "SKIFF_COMM_TIMEOUT": str(args.comm_timeout),
        "PADDLE_TRAINER_ID": str(rank), "PADDLE_TRAINERS_NUM": str(world_size),
        "PADDLE_LOCAL_RANK": str(local_rank),
    })
    # The node's cores shared among its workers: OpenMP threads beyond them spin against
    # each other's (two workers of two threads each on two cores ran each step 2x slower).
    cores = len(os.sched_getaffinity(0))
    env.setdefault("OMP_NUM_THREADS", str(max(1, cores // args.nproc_per_node)))
    os.makedirs(args.log_dir, exist_ok=True)
    log = open(os.path.join(args.log_dir, f"workerlog.{rank}"), "wb")
    cmd = [sys.executable, "-u", args.script] + list(args.script_args)
    process = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return process


def _ps_mode(args):
    return args.server_num is not None or args.trainer_num is not None or bool(
        args.servers) or bool(args.trainers)


def _launch_ps(args):
    collective = [flag for flag, given in (
        ("--nnodes", args.nnodes != "1"), ("--nproc_per_node", args.nproc_per_node != 1),
        ("--etcd", bool(args.etcd)), ("--job_id", bool(args.job_id)),
        ("--host", args.host != "127.0.0.1")) if given]
    if collective:
        raise ValueError(f"launch: {', '.join(collective)} belong to collective jobs; a "
                         f"parameter-server job (--server_num/--trainer_num/--servers/"
                         f"--trainers) takes none")
    if not os.path.exists(args.script):
        raise FileNotFoundError(f"launch: no script {args.script}")
    if args.ps_checkpoint_secs < 0:
        raise ValueError(f"launch: --ps_checkpoint_secs {args.ps_checkpoint_secs} is negative")
    servers, trainers = ps_job.job_endpoints(args.server_num, args.trainer_num, args.servers,
                                             args.trainers)
    return ps_job.run(args.script, args.script_args, servers, trainers, args.log_dir,
                      args.ps_checkpoint_dir, args.ps_checkpoint_secs, args.max_restarts)


def launch(argv):
    args = _parser().parse_args(argv)
    if _ps_mode(args):
        return _launch_ps(args)
    low, high = _parse_nnodes(args.nnodes)
    if args.nproc_per_node < 1:
        raise ValueError(f"launch: --nproc_per_node must be positive, got {args.nproc_per_node}")
    if not os.path.exists(args.script):
        raise FileNotFoundError(f"launch: no script {args.script}")
    local_etcd = None
    if not args.etcd:
        if high > 1:
            raise ValueError("launch: a job of several nodes needs --etcd HOST:PORT (every "
                             "node's launcher meets the others there)")
        local_etcd = LocalEtcd()
    endpoint = args.etcd or local_etcd.endpoint
    job_id = args.job_id or uuid.uuid4().hex[:12]
    node = None
    workers = []
    try:
        etcd = _C.EtcdClient(endpoint, timeout=5.0)
        etcd.get(f"/skiff/{job_id}/ping")  # a clear error now if etcd is unreachable
        if low != high:
            return _run_elastic(args, low, high, endpoint, job_id)
        node = _Node(etcd, job_id, args.host, args.nproc_per_node, high)
        nodes = node.wait_for(low, args.rendezvous_timeout)
        sizes = [int(n[1]) for n in nodes]
        world_size = sum(sizes)
        first = sum(sizes[:node.index])
        for local in range(args.nproc_per_node):
            workers.append(_start_worker(args, first + local, local, world_size, endpoint,
                                         job_id))
        return _wait(workers, args.log_dir, first, echo=not args.no_echo)
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
                w.wait()
        if node:
            node.leave()
            if node.index == 0:
                try:
                    etcd.remove_prefix(f"/skiff/{job_id}/")
                except _C.Error:
                    pass
        if local_etcd:
            local_etcd.stop()


def _run_elastic(args, low, high, endpoint, job_id):
    """An elastic job: the workers form their worlds themselves (ElasticTrainer, between
    MIN and MAX nodes' worth of workers); a worker that fails is replaced up to
    --max_restarts times, and its replacement joins the running job."""
    min_workers, max_workers = low * args.nproc_per_node, high * args.nproc_per_node
    os.environ.update({"SKIFF_ELASTIC": "1", "SKIFF_MIN_WORKERS": str(min_workers),
                       "SKIFF_MAX_WORKERS": str(max_workers)})
    slots = {local: _start_worker(args, local, local, max_workers, endpoint, job_id)
             for local in range(args.nproc_per_node)}
    restarts = 0
    try:
        while True:
            for local, w in list(slots.items()):
                code = w.poll()
                if code is None or code == 0:
                    continue
                if restarts >= args.max_restarts:
                    print(f"launch: worker {local} exited with code {code} and the job has "
                          f"used its {args.max_restarts} restarts", file=sys.stderr)
                    return code if code > 0 else 128 - code
                restarts += 1
                print(f"launch: worker {local} exited with code {code}; starting a "
                      f"replacement ({restarts} of {args.max_restarts})", file=sys.stderr)
                slots[local] = _start_worker(args, local, local, max_workers, endpoint, job_id)
            if all(w.poll() == 0 for w in slots.values()):
                return 0
            time.sleep(0.1)
    finally:
        for w in slots.values():
            if w.poll() is None:
                w.kill()
                w.wait()


def _wait(workers, log_dir, first_rank, echo=True):
    stop = threading.Event()
    echo = threading.Thread(target=echo_log, args=(os.path.join(log_dir, "workerlog.0"), stop),
                            daemon=True) if echo and first_rank == 0 else None
    if echo:
        echo.start()
    try:
        while True:
            codes = [w.poll() for w in workers]
            failed = [(i, c) for i, c in enumerate(codes) if c not in (None, 0)]
            if failed:
                i, code = failed[0]
                print(f"launch: worker {first_rank + i} exited with code {code}; stopping the "
                      f"others (its log: {log_dir}/workerlog.{first_rank + i})", file=sys.stderr)
                for w in workers:
                    if w.poll() is None:
                        w.send_signal(signal.SIGTERM)
                for w in workers:
                    try:
                        w.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        w.kill()
                return code if code > 0 else 128 - code
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.1)
    finally:
        stop.set()
        if echo:
            echo.join(timeout=5)


def main(argv=None):
    try:
        return launch(sys.argv[1:] if argv is None else argv)
    except (ValueError, FileNotFoundError, TimeoutError, RuntimeError, _C.Error) as e:
        print(f"launch: {e}" if not str(e).startswith("launch:") else str(e), file=sys.stderr)
        return 2
