#!/usr/bin/env python3
"""Parameter server throughput: skiff beside PaddlePaddle's parameter server.

The workload is build/bench/ps_throughput's: one trainer pulls then pushes batches of
10k ids (ids skewed over 10M: floor(exp(U(0, ln 1e7)))), rows of 64 floats, SGD, against
1 and 2 servers, everything on 127.0.0.1, each server a process of its own. The figure is
rows per second, pulled + pushed (2 x ids per batch / seconds per batch).

skiff: build/bench/ps_throughput is run as is and its RESULT lines are read.

PaddlePaddle: its fleet parameter server the way its users run it: static graph, an
embedding looked up with paddle.static.nn.sparse_embedding (a table on the servers that
creates rows on first use), loss = mean of the looked-up rows, SGD, fleet.init() with a
PaddleCloudRoleMaker configured by environment variables, strategy.a_sync = True,
fleet.distributed_optimizer(...).minimize(loss); each server runs fleet.init_server();
fleet.run_server(), the trainer fleet.init_worker(), N executor steps, fleet.stop_worker().
Every server and the trainer is a process started by this script on free 127.0.0.1 ports,
bounded in time, and killed at the end. A Paddle step is one Executor.run: the pull
(distributed lookup), the forward mean, the backward (a 10k x 64 sparse gradient), the
push handed to Paddle's communicator, plus the executor's own overhead.

Paddle runs in the interpreter that runs this script. Its PS needs a wheel built with
PSCore: the paddlepaddle 3.x CPU wheels on PyPI (3.3.1 checked) are built without it
(paddle.base.core has no DistFleetWrapper / CommContext), and the script then says so and
prints the error Paddle gives. paddlepaddle 2.6.2 from PyPI has it (with protobuf 4.x: with
protobuf 3.20 (pure Python on 3.11) or 7.x its DistributedStrategy fails), e.g. in a separate
virtual environment:  python -m venv pd26 && pd26/bin/pip install paddlepaddle==2.6.2
"protobuf>=4.21,<5" "numpy<2"  then  pd26/bin/python bench/ps_peers.py.

    .venv/bin/python bench/ps_peers.py [--batches 30] [--warmup 3] [--servers 1,2] \
        [--rounds 5] [--skiff build/bench/ps_throughput] [--timeout 300]
"""

import argparse
import json
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# --------------------------------------------------------------------------------------
# Paddle roles (run in child processes of this script)
# --------------------------------------------------------------------------------------


def stage(name):
    print("PADDLE_STAGE " + name, flush=True)


def _paddle_program(ids_per_batch, dim, vocab, lr):
    import paddle
    import paddle.distributed.fleet as fleet

    paddle.enable_static()
    stage("fleet.init")
    fleet.init()  # PaddleCloudRoleMaker(is_collective=False), from the environment
    stage("building the program")
    # The default programs, as in Paddle's own PS examples: minimize() rewrites them for
    # the role (the trainer's lookup becomes a pull from the servers, its gradient a push)
    # and installs the rewritten ones as loss.block.program and the default startup program.
    ids = paddle.static.data(name="ids", shape=[ids_per_batch, 1], dtype="int64")
    emb = paddle.static.nn.sparse_embedding(
        input=ids,
        size=[vocab, dim],
        param_attr=paddle.ParamAttr(
            name="emb", initializer=paddle.nn.initializer.Uniform(-0.01, 0.01)
        ),
    )
    loss = paddle.mean(emb)
    stage("fleet.distributed_optimizer(...).minimize")
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = True
    opt = fleet.distributed_optimizer(paddle.optimizer.SGD(learning_rate=lr), strategy=strategy)
    opt.minimize(loss)
    return paddle, fleet, loss.block.program, paddle.static.default_startup_program(), loss


def paddle_server(args):
    paddle, fleet, main, startup, _ = _paddle_program(args.ids, args.dim, args.vocab, args.lr)
    stage("fleet.init_server")
    fleet.init_server()
    stage("fleet.run_server")
    fleet.run_server()  # blocks until the trainer stops the servers (or we kill it)


def paddle_trainer(args):
    import numpy as np

    paddle, fleet, main, startup, loss = _paddle_program(args.ids, args.dim, args.vocab, args.lr)
    exe = paddle.static.Executor(paddle.CPUPlace())
    stage("startup program")
    exe.run(startup)
    stage("fleet.init_worker")
    fleet.init_worker()
    stage("steps")
    rng = np.random.default_rng(1)
    log_max = math.log(float(args.vocab))

    def batch():
        u = rng.uniform(0.0, log_max, size=args.ids)
        return np.minimum(np.floor(np.exp(u)), args.vocab - 1).astype(np.int64).reshape(-1, 1)

    # Batches are drawn before the clock starts, so the timed loop is the steps alone.
    batches = [batch() for _ in range(args.warmup + args.batches)]
    for b in batches[: args.warmup]:
        exe.run(main, feed={"ids": b}, fetch_list=[loss])
    times = []
    first_loss = last_loss = None
    start = time.perf_counter()
    for b in batches[args.warmup :]:
        t0 = time.perf_counter()
        (value,) = exe.run(main, feed={"ids": b}, fetch_list=[loss])
        times.append(time.perf_counter() - t0)
        last_loss = float(np.asarray(value).reshape(-1)[0])
        if first_loss is None:
            first_loss = last_loss
    total = time.perf_counter() - start
    t1 = time.perf_counter()
    stage("fleet.stop_worker")
    fleet.stop_worker()  # flushes the communicator's pending pushes
    stop_s = time.perf_counter() - t1
    print(
        "PADDLE_RESULT "
        + json.dumps(
            {
                "rows_per_s": 2.0 * args.ids * args.batches / total,
                "median_step_ms": 1e3 * statistics.median(times),
                "rows_per_s_incl_stop": 2.0 * args.ids * args.batches / (total + stop_s),
                "stop_worker_s": stop_s,
                "loss_first": first_loss,
                "loss_last": last_loss,
            }
        ),
        flush=True,
    )


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def paddle_env(role, endpoints, port, trainer_id=0):
    env = dict(os.environ)
    env.update(
        {
            "TRAINING_ROLE": role,
            "PADDLE_PSERVERS_IP_PORT_LIST": ",".join(endpoints),
            "PADDLE_PSERVER_NUMS": str(len(endpoints)),
            "PADDLE_TRAINERS_NUM": "1",
            "PADDLE_TRAINER_ID": str(trainer_id),
            "POD_IP": "127.0.0.1",
            "PADDLE_PORT": str(port),
            # The trainer's endpoint (read by the role maker in PS mode).
            "PADDLE_TRAINER_ENDPOINTS": "127.0.0.1:%d" % port,
            # The fleet PS passes work on the legacy program IR.
            "FLAGS_enable_pir_api": "0",
            "CPU_NUM": "1",
            "OMP_NUM_THREADS": "1",
            "GLOG_v": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def kill_group(proc):
    """Kills the process and whatever it started (its process group), even after it exited."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def tail(path, n=40):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-n:])


def first_error(text):
    """The most telling line of a Python/Paddle failure log."""
    lines = [l for l in text.splitlines() if l.strip()]
    for l in reversed(lines):
        if "Error" in l or "Exception" in l:
            return l.strip()
    return lines[-1].strip() if lines else "(no output)"


def last_stage(text):
    stages = [l[len("PADDLE_STAGE "):] for l in text.splitlines() if l.startswith("PADDLE_STAGE ")]
    return stages[-1] if stages else "start-up"


def describe_failure(who, code, log):
    text = tail(log, 10000)
    return {
        "who": who,
        "code": code,
        "stage": last_stage(text),
        "error": first_error(text),
        "tail": tail(log, 25),
    }


def run_paddle(args, n_servers, logdir):
    """Starts n_servers Paddle servers and one trainer; returns (result dict, None) or
    (None, failure dict)."""
    ports = free_ports(n_servers + 1)
    endpoints = ["127.0.0.1:%d" % p for p in ports[:n_servers]]
    me = os.path.abspath(__file__)
    common = [
        "--ids", str(args.ids), "--dim", str(args.dim), "--vocab", str(args.vocab),
        "--lr", str(args.lr), "--batches", str(args.batches), "--warmup", str(args.warmup),
    ]
    procs, logs = [], []

    def start(role, env, log):
        with open(log, "w") as f:
            p = subprocess.Popen([sys.executable, me, "--role", role] + common, env=env,
                                 stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(p)
        logs.append(log)
        return p

    def failed_server():
        for i, (p, log) in enumerate(zip(procs[:-1], logs[:-1])):
            if p.poll() is not None and p.returncode != 0:
                return describe_failure("server %d" % i, p.returncode, log)
        return None

    try:
        for s in range(n_servers):
            start("pserver", paddle_env("PSERVER", endpoints, ports[s]),
                  os.path.join(logdir, "paddle_%ds_server%d.log" % (n_servers, s)))
        tlog = os.path.join(logdir, "paddle_%ds_trainer.log" % n_servers)
        trainer = start("trainer", paddle_env("TRAINER", endpoints, ports[-1]), tlog)
        deadline = time.time() + args.timeout
        while trainer.poll() is None and time.time() < deadline:
            if failed_server():
                break
            time.sleep(0.2)
        # Give a trainer that is finishing (stop_worker) a moment to print its result.
        end = time.time() + 5
        while trainer.poll() is None and time.time() < end and not failed_server():
            time.sleep(0.2)
        for line in tail(tlog, 10000).splitlines():
            if line.startswith("PADDLE_RESULT "):
                return json.loads(line[len("PADDLE_RESULT "):]), None
        if trainer.poll() is None:
            f = failed_server() or describe_failure("trainer", None, tlog)
            if f["who"] == "trainer":
                f["error"] = "timed out after %d s" % args.timeout
            return None, f
        return None, failed_server() or describe_failure("trainer", trainer.returncode, tlog)
    finally:
        for p in procs:
            kill_group(p)


def run_skiff(args):
    exe = args.skiff if os.path.isabs(args.skiff) else os.path.join(ROOT, args.skiff)
    if not os.path.exists(exe):
        return None, "%s not built (ninja -C build ps_throughput)" % exe
    cmd = [exe, "--batches", str(args.batches), "--ids", str(args.ids), "--dim", str(args.dim)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        kill_group(p)
        return None, "ps_throughput timed out after %d s" % args.timeout
    finally:
        kill_group(p)
    res = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "RESULT":
            if parts[1] == "ps_rows_per_s_1_server":
                res[1] = float(parts[2])
            elif parts[1] == "ps_rows_per_s_2_servers":
                res[2] = float(parts[2])
    if p.returncode != 0 and not res:
        return None, "ps_throughput exited with %d:\n%s" % (p.returncode, out[-2000:])
    return res, None


def paddle_ps_available():
    """(ok, reason): whether this paddle wheel has its parameter server (PSCore) built in."""
    try:
        import paddle  # noqa: F401
        from paddle.base import core
    except Exception as e:  # noqa: BLE001
        return False, "paddle cannot be imported: %r" % e
    missing = [n for n in ("DistFleetWrapper", "CommContext") if not hasattr(core, n)]
    if missing:
        return False, (
            "this paddlepaddle %s wheel is built without its parameter server (PSCore): "
            "paddle.base.core lacks %s, which the fleet PS runtime "
            "(paddle.distributed.ps.the_one_ps.TheOnePSRuntime, made by "
            "fleet.distributed_optimizer(...).minimize) needs"
            % (paddle.__version__, ", ".join(missing))
        )
    return True, ""


def fmt_rate(x):
    return "-" if x is None else "%.3f M" % (x / 1e6)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--batches", type=int, default=30, help="timed batches per run")
    ap.add_argument("--warmup", type=int, default=3, help="Paddle warm-up steps (not timed)")
    ap.add_argument("--ids", type=int, default=10000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=10_000_000)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--servers", default="1,2")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternate skiff and Paddle this many times; medians are reported")
    ap.add_argument("--skiff", default="build/bench/ps_throughput")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run, per side")
    ap.add_argument("--keep-logs", action="store_true", help="keep the Paddle process logs")
    ap.add_argument("--role", choices=["pserver", "trainer"], help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.role == "pserver":
        return paddle_server(args)
    if args.role == "trainer":
        return paddle_trainer(args)

    servers = [int(s) for s in args.servers.split(",") if s]
    print("parameter server: pull + push of %d-id batches (ids skewed over %d), %d floats "
          "per row, SGD, one trainer, servers on 127.0.0.1; %d timed batches, %d round(s)"
          % (args.ids, args.vocab, args.dim, args.batches, args.rounds), flush=True)

    ok, reason = paddle_ps_available()
    try:
        import paddle

        print("PaddlePaddle %s (CPU), run by %s" % (paddle.__version__, sys.executable), flush=True)
    except Exception:  # noqa: BLE001
        pass
    if not ok:
        print("PaddlePaddle PS: unavailable -- " + reason, flush=True)
        print("(trying it anyway, to show the error Paddle itself gives)", flush=True)

    logdir = tempfile.mkdtemp(prefix="ps_peers_")
    try:
        report(args, servers, ok, reason, logdir)
    finally:
        if args.keep_logs:
            print("Paddle logs: " + logdir)
        else:
            shutil.rmtree(logdir, ignore_errors=True)
    return 0


def report(args, servers, ok, reason, logdir):
    skiff_runs = {n: [] for n in servers}
    paddle_runs = {n: [] for n in servers}
    skiff_errors, paddle_failures = [], []
    ratios = {n: [] for n in servers}  # per round, so that drifting load hits both alike
    for r in range(args.rounds):
        res, err = run_skiff(args)
        if err:
            skiff_errors.append(err)
        else:
            for n in servers:
                if n in res:
                    skiff_runs[n].append(res[n])
        for n in servers:
            if any(f["stage"] != "steps" and f["n"] == n for f in paddle_failures):
                continue  # failed before its first step: it will fail the same way again
            pres, fail = run_paddle(args, n, logdir)
            if fail:
                fail["n"] = n
                paddle_failures.append(fail)
                print("PaddlePaddle PS, %d server(s): FAILED in %s (exit %s) at %s: %s"
                      % (n, fail["who"], fail["code"], fail["stage"], fail["error"]), flush=True)
            else:
                paddle_runs[n].append(pres)
                if err is None and n in res:
                    ratios[n].append(res[n] / pres["rows_per_s"])
                print("round %d, %d server(s): skiff %s, Paddle %s rows/s (Paddle median step "
                      "%.1f ms, loss %.6g -> %.6g)"
                      % (r + 1, n, fmt_rate(skiff_runs[n][-1] if skiff_runs[n] else None),
                         fmt_rate(pres["rows_per_s"]), pres["median_step_ms"],
                         pres["loss_first"], pres["loss_last"]), flush=True)

    print()
    print("| servers | skiff rows/s | Paddle rows/s | Paddle rows/s incl. stop_worker "
          "| skiff / Paddle |")
    print("|---|---:|---:|---:|---:|")
    for n in servers:
        s = statistics.median(skiff_runs[n]) if skiff_runs[n] else None
        if paddle_runs[n]:
            p = statistics.median(x["rows_per_s"] for x in paddle_runs[n])
            pi = statistics.median(x["rows_per_s_incl_stop"] for x in paddle_runs[n])
        else:
            p = pi = None
        ratio = "%.2f" % statistics.median(ratios[n]) if ratios[n] else "-"
        print("| %d | %s | %s | %s | %s |" % (n, fmt_rate(s), fmt_rate(p), fmt_rate(pi), ratio))
    print()
    print("rows/s = (pulled + pushed rows) / time, median over rounds; skiff / Paddle: the "
          "median of the per-round ratios, above 1: skiff is faster.")
    print("Paddle's step is one Executor.run (pull via the distributed lookup, forward mean, "
          "backward, push handed to its communicator) and includes the executor's overhead; "
          "with a_sync the push is sent by the communicator thread, so the column 'incl. "
          "stop_worker' also counts fleet.stop_worker(), which flushes it.")
    for e in skiff_errors:
        print()
        print("skiff: " + e)
    if paddle_failures:
        print()
        print("Paddle: not measured -- " + (reason if not ok else "its parameter server failed:"))
        shown = set()
        for f in paddle_failures:
            print("  %d server(s): %s (exit %s) failed at %s: %s"
                  % (f["n"], f["who"], f["code"], f["stage"], f["error"]))
        for f in paddle_failures:
            if f["error"] in shown:
                continue
            shown.add(f["error"])
            print()
            print("--- last lines of the %s's log (%d server(s)) ---" % (f["who"], f["n"]))
            print(f["tail"])


if __name__ == "__main__":
    sys.exit(main() or 0)
