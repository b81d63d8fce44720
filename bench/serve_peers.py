"""W10: skiff serve beside the servers a user would pick instead, all on 127.0.0.1 in one run.
W6's MLP (784-512-512-10) and W3's CNN with bench/peers.py's parameter values, batch-1
float32 requests in the Open Inference Protocol's JSON encoding (--encoding binary: the input
as binary data after the JSON, the protocol's binary tensor extension; outputs in JSON), the
same request bytes and the same load generator (bench/serve_load.py: keep-alive HTTP/1.1,
one connection per client) for every server:

  skiff         `skiff serve`, each model as a program (skiff.jit.save) and as a compiled
                library (skiff.jit.compile(..., shared_library=True))
  triton        Triton as PyTriton runs it (bench/serve_peer_servers.py, PyTorch)
  kserve        KServe's Python model server, a kserve.Model running PyTorch (the same file)
  kserve_paddle the same KServe server running Paddle Inference (paddle.jit.save, then
                paddle.inference.create_predictor), as Paddle users serve on KServe

The peers run with the python of .venv-serve-peers (bench/serve_peers_setup.sh). Per round
and server: process start to first answer; every model's answer against skiff's in-process
call (max abs diff); p50/p99 over REQUESTS sequential requests of one client after a
warm-up; requests/s of 16 closed-loop clients on the dynamically batched models (max batch
16, at most 500 us of queue delay; KServe has no batcher); for skiff, model load to first
answer of a model not yet loaded or unloaded by --idle-unload (the client's time and
skiff_serve_cold_start_seconds). The in-process call of skiff.jit.load's layer is timed
too, and GET /v2/health/live (the floor of the load generator and each server's HTTP).
Medians over rounds; ratios to skiff's program (above 1: skiff is faster). Every process
started is stopped, with what it started (its process group).

    PYTHONPATH=build/python .venv/bin/python bench/serve_peers.py [--rounds 3] \
        [--servers skiff,triton,kserve,kserve_paddle] [--requests 500] [--encoding json|binary]
"""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from serve_load import (LOOPBACK, Client, closed_loop, cold_model_load,  # noqa: E402
                        first_answer, logits, percentiles, request_body, sequential,
                        wait_ready)
from serve_peer_servers import MAX_BATCH, MODELS, QUEUE_DELAY_US  # noqa: E402

SERVERS = ["skiff", "triton", "kserve", "kserve_paddle"]
CLIENTS = 16
THROUGHPUT_REQUESTS = {"mlp": 3000, "cnn": 1000}
COLD_SAMPLES = 3
HEALTH = "/v2/health/live"
LATENCY_CONFIG = f"max_batch_size: {MAX_BATCH}\n"
BATCHED_CONFIG = (f"max_batch_size: {MAX_BATCH}\n"
                  f"dynamic_batching {{ max_queue_delay_microseconds: {QUEUE_DELAY_US} }}\n")


def model_input(kind):
    from peers import image_batch
    return image_batch([1] + MODELS[kind][2])[0]


def body_of(kind, args):
    return request_body(kind, model_input(kind), binary=args.encoding == "binary")


def skiff_repository(folder):
    """Writes NAME (program), NAME_lib (compiled) and their _batched twins for the MLP and
    the CNN; returns {kind: jit.load'd layer}."""
    import skiff
    from int8_infer import skiff_network

    layers = {}
    for kind, network in (("mlp", "mlp"), ("cnn", "cnn")):
        net, spec = skiff_network(network)
        net.eval()
        program = os.path.join(folder, kind, "1", "model")
        skiff.jit.save(net, program, input_spec=spec)
        build = os.path.join(folder, "build_" + kind)
        skiff.jit.compile(program, build, shared_library=True)
        os.makedirs(os.path.join(folder, kind + "_lib", "1"))
        shutil.move(os.path.join(build, "libmodel.so"), os.path.join(folder, kind + "_lib", "1"))
        shutil.rmtree(build)
        for name in (kind, kind + "_lib"):
            shutil.copytree(os.path.join(folder, name, "1"),
                            os.path.join(folder, name + "_batched", "1"))
            with open(os.path.join(folder, name, "config.pbtxt"), "w") as f:
                f.write(LATENCY_CONFIG)
            with open(os.path.join(folder, name + "_batched", "config.pbtxt"), "w") as f:
                f.write(BATCHED_CONFIG)
        layers[kind] = skiff.jit.load(program)
    return layers


def in_process(layers, requests):
    """{kind: (p50 ms, p99 ms, logits)} of the jit.load'd layers called one input at a time."""
    import skiff

    out = {}
    for kind, layer in layers.items():
        x = model_input(kind)

        def call(layer=layer, x=x):
            with skiff.no_grad():
                return layer(skiff.to_tensor(x)).numpy()
        times = []
        for i in range(requests + requests // 10):
            t0 = time.perf_counter()
            call()
            if i >= requests // 10:
                times.append(time.perf_counter() - t0)
        out[kind] = (*percentiles(times), call())
    return out


def infer_path(model):
    return f"/v2/models/{model}/infer"


def free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


class Server:
    """A server process leading a process group of its own: `port`, `started` (perf_counter at its
    start), stop() (SIGTERM, then SIGKILL to whatever of its process group is left)."""

    def __init__(self, name, command, port, env, log):
        self.name, self.port, self.log = name, port, log
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE if port is None else log,
                                        stderr=subprocess.STDOUT, env=env, text=True,
                                        start_new_session=True)
        if port is None:  # skiff serve picks a free port and prints it first
            line = self.process.stdout.readline()
            if "HTTP on 127.0.0.1:" not in line:
                self.stop()
                raise RuntimeError(f"skiff serve did not start: {line}")
            self.port = int(line.split("127.0.0.1:")[1].split(",")[0])
            threading.Thread(target=self.process.stdout.read, daemon=True).start()

    @classmethod
    def start(cls, server, args, repository):
        env = dict(os.environ, OMP_NUM_THREADS="2", MKL_NUM_THREADS="2")
        log = open(os.path.join(repository, f"{server}.log"), "a")
        if server == "skiff":
            command = [os.path.join(args.build, "bin", "skiff"), "serve", "--model-repository",
                       repository, "--http-port", "0", "--idle-unload", "1"]
            return cls(server, command, None, env, log)
        env.pop("PYTHONPATH", None)
        port = free_port()
        command = [args.peer_python, os.path.join(HERE, "serve_peer_servers.py"), server,
                   "--http-port", str(port)]
        if server == "triton":
            command += ["--grpc-port", str(free_port()), "--metrics-port", str(free_port())]
        return cls(server, command, port, env, log)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:  # what the server started (tritonserver, its backend stubs)
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()


def variants(server):
    """[(label, kind, latency model, throughput model)] a server is measured on."""
    rows = []
    for kind in MODELS:
        if server == "skiff":
            rows += [("skiff program", kind, kind, kind + "_batched"),
                     ("skiff compiled", kind, kind + "_lib", kind + "_lib_batched")]
        elif server == "triton":
            rows.append(("Triton (PyTriton)", kind, kind, kind + "_batched"))
        else:
            rows.append((label_of(server), kind, kind, kind))
    return rows


def measure(server, args, repository, reference, record):
    """One round of one server: everything in the module docstring, into record(key, v)."""
    first = "mlp"
    proc = Server.start(server, args, repository)
    try:
        record(("process start -> first answer, s", "-", label_of(server)),
               first_answer(proc, first, body_of(first, args)))
        rows = variants(server)
        wait_ready(proc.port, [m for row in rows for m in row[2:]])
        # The floor of the load generator and HTTP: the liveness endpoint, no model.
        client = Client(proc.port)
        record(("health p50 ms, 1 client", "-", label_of(server)),
               sequential(client, HEALTH, None, args.requests)[0])
        client.close()
        record(("health requests/s, 16 clients", "-", label_of(server)),
               closed_loop(proc.port, HEALTH, None, CLIENTS, THROUGHPUT_REQUESTS["mlp"])[0])
        for label, kind, lat_model, thr_model in rows:
            body = body_of(kind, args)
            client = Client(proc.port)  # a fresh connection: servers close idle ones
            for model in {lat_model, thr_model}:
                diff = float(np.max(np.abs(logits(client.infer(model, body)) - reference[kind])))
                record(("max abs diff vs in-process", kind, label), diff)
            p50, p99 = sequential(client, infer_path(lat_model), body, args.requests)
            client.close()
            record(("p50 ms, 1 client", kind, label), p50)
            record(("p99 ms, 1 client", kind, label), p99)
            rate, p50_load = closed_loop(proc.port, infer_path(thr_model), body, CLIENTS,
                                         THROUGHPUT_REQUESTS[kind])
            record(("requests/s, 16 clients", kind, label), rate)
            record(("p50 ms, 16 clients", kind, label), p50_load)
        if server == "skiff":
            for label, kind, lat_model, _ in rows:
                samples = [cold_model_load(proc.port, lat_model, body_of(kind, args))
                           for _ in range(COLD_SAMPLES)]
                record(("model load -> first answer (client), ms", kind, label),
                       statistics.median(s[0] for s in samples))
                record(("skiff_serve_cold_start_seconds, ms", kind, label),
                       statistics.median(s[1] for s in samples))
    finally:
        proc.stop()
    if server == "skiff":
        proc = Server.start(server, args, repository)
        try:
            record(("process start -> first answer, s", "-", "skiff compiled"),
                   first_answer(proc, first + "_lib", body_of(first, args)))
        finally:
            proc.stop()


def label_of(server):
    return {"skiff": "skiff program", "triton": "Triton (PyTriton)", "kserve": "KServe",
            "kserve_paddle": "KServe + Paddle Inference"}[server]


COLUMNS = ["skiff program", "skiff compiled", "Triton (PyTriton)", "KServe",
           "KServe + Paddle Inference"]


def print_table(results):
    """One row per (measurement, model): the median over rounds per server, then each
    server's ratio to skiff's program (time: other / skiff; requests/s: skiff / other)."""
    keys = sorted({k[:2] for k in results}, key=lambda k: (k[1], k[0]))
    head = ["measurement", "model", *COLUMNS, *(f"{c} vs skiff" for c in COLUMNS[1:])]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for measurement, kind in keys:
        values = [results.get((measurement, kind, c)) for c in COLUMNS]
        med = [statistics.median(v) if v else None for v in values]
        base = med[0]
        ratios = []
        for m in med[1:]:
            if m is None or base is None or "diff" in measurement or not base or not m:
                ratios.append("")
            elif "requests/s" in measurement:
                ratios.append(f"{base / m:.2f}")
            else:
                ratios.append(f"{m / base:.2f}")
        cells = [fmt(m, measurement) for m in med]
        print("| " + " | ".join([measurement, kind, *cells, *ratios]) + " |")


def fmt(v, measurement):
    if v is None:
        return ""
    if "diff" in measurement:
        return f"{v:.1e}"
    if "requests/s" in measurement:
        return f"{v:.0f}"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--servers", default=",".join(SERVERS))
    p.add_argument("--requests", type=int, default=500, help="timed requests of 1 client")
    p.add_argument("--encoding", choices=["json", "binary"], default="json",
                   help="the input tensor in the request's JSON, or as binary data after it")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--peer-python",
                   default=os.path.join(ROOT, ".venv-serve-peers", "bin", "python"))
    args = p.parse_args(argv)
    servers = args.servers.split(",")
    if any(s != "skiff" for s in servers) and not os.path.exists(args.peer_python):
        sys.exit(f"no {args.peer_python}: run bench/serve_peers_setup.sh first")
    results = {}

    def record(key, value):
        results.setdefault(key, []).append(value)
    with tempfile.TemporaryDirectory(prefix="serve_peers_") as repository:
        layers = skiff_repository(repository)
        local = in_process(layers, args.requests)
        reference = {kind: v[2] for kind, v in local.items()}
        for r in range(args.rounds):
            for server in servers[r % len(servers):] + servers[:r % len(servers)]:
                t0 = time.perf_counter()
                measure(server, args, repository, reference, record)
                print(f"# round {r + 1}: {server} measured in {time.perf_counter() - t0:.0f} s",
                      flush=True)
    for kind, (p50, p99, _) in local.items():
        results[("in-process call p50 ms (jit.load)", kind, "skiff program")] = [p50]
        results[("in-process call p99 ms (jit.load)", kind, "skiff program")] = [p99]
        http = results.get(("p50 ms, 1 client", kind, "skiff program"))
        if http:
            print(f"# {kind}: skiff program p50 over HTTP / in-process p50 = "
                  f"{statistics.median(http) / p50:.2f}")
    print_table(results)


if __name__ == "__main__":
    main()
