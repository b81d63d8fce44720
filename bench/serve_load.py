"""The load generator of bench/serve_peers.py: Open Inference Protocol requests in JSON over
keep-alive HTTP/1.1 (http.client, TCP_NODELAY, one connection per client), the same for every
server: one client's sequential requests, closed loops of many clients, the first answer of
a starting server, and skiff serve's cold model load."""
import http.client
import json
import re
import socket
import threading
import time

import numpy as np

LOOPBACK = "127.0.0.1"
HEADERS = {"Content-Type": "application/json"}


class Client:
    """One keep-alive connection to a server on 127.0.0.1."""

    def __init__(self, port, timeout=60):
        self.conn = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def call(self, method, path, body=None):
        """(status, body bytes)."""
        headers = HEADERS
        if isinstance(body, BinaryBody):
            headers = {"Content-Type": "application/octet-stream",
                       "Inference-Header-Content-Length": str(body.header_length)}
        self.conn.request(method, path, body, headers)
        r = self.conn.getresponse()
        return r.status, r.read()

    def infer(self, model, body):
        return self.send(f"/v2/models/{model}/infer", body)

    def send(self, path, body):
        """POST `body` to `path` (GET where body is None); the answer's body, or raises."""
        status, data = self.call("GET" if body is None else "POST", path, body)
        if status != 200:
            raise RuntimeError(f"{path}: HTTP {status}: {data[:300]!r}")
        return data

    def close(self):
        self.conn.close()


def request_body(kind, x, binary=False):
    """The inference request of one input (bytes; input names as the models declare): all
    JSON, or with `binary` the JSON header followed by the tensor's bytes (the protocol's
    binary tensor extension; Client.send marks its length). Outputs come back in JSON."""
    from serve_peer_servers import MODELS
    tensor = {"name": MODELS[kind][1], "shape": list(x.shape), "datatype": "FP32"}
    if not binary:
        tensor["data"] = x.ravel().tolist()
        return json.dumps({"inputs": [tensor]}).encode()
    raw = np.ascontiguousarray(x, np.float32).tobytes()
    tensor["parameters"] = {"binary_data_size": len(raw)}
    header = json.dumps({"inputs": [tensor]}).encode()
    return BinaryBody(header + raw, len(header))


class BinaryBody(bytes):
    """A request body of a JSON header and binary tensors; `header_length` bytes of JSON."""

    def __new__(cls, data, header_length):
        body = super().__new__(cls, data)
        body.header_length = header_length
        return body


def logits(data):
    """The first output of a JSON inference response as float32."""
    return np.asarray(json.loads(data)["outputs"][0]["data"], np.float32)


def percentiles(seconds):
    ms = np.asarray(seconds) * 1e3
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 99))


def sequential(client, path, body, requests, warmup=50):
    """(p50 ms, p99 ms) of `requests` requests to `path` one after another, after `warmup`."""
    for _ in range(warmup):
        client.send(path, body)
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        client.send(path, body)
        times.append(time.perf_counter() - t0)
    return percentiles(times)


def closed_loop(port, path, body, clients, requests, deadline_s=90.0, warmup=3):
    """(requests/s, p50 ms) of `clients` threads, each sending its next request when its last
    is answered, until `requests` are answered (or deadline_s passes)."""
    lock = threading.Lock()
    left = [requests]
    times = [[] for _ in range(clients)]
    errors = []
    ready = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def run(i):
        try:
            client = Client(port)
            for _ in range(warmup):
                client.send(path, body)
        except Exception as e:  # noqa: BLE001 - reported below, after the barrier
            errors.append(e)
            client = None
        ready.wait()
        while client is not None and not errors:
            with lock:
                if left[0] <= 0 or time.perf_counter() > stop_at[0]:
                    break
                left[0] -= 1
            t0 = time.perf_counter()
            try:
                client.send(path, body)
            except Exception as e:  # noqa: BLE001 - reported by the caller
                errors.append(e)
                break
            times[i].append(time.perf_counter() - t0)
        if client is not None:
            client.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + deadline_s + 60
    ready.wait()
    t0 = time.perf_counter()
    stop_at[0] = t0 + deadline_s
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise RuntimeError(f"{path}: {errors[0]}")
    done = [s for per_client in times for s in per_client]
    return len(done) / wall, percentiles(done)[0]


def first_answer(server, model, body, timeout_s=300.0):
    """Seconds from the server's process start to the first 200 answer of `model`."""
    deadline = time.perf_counter() + timeout_s
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited with {server.process.returncode}")
        try:
            client = Client(server.port, timeout=timeout_s)
            try:
                status, _ = client.call("POST", f"/v2/models/{model}/infer", body)
            finally:
                client.close()
            if status == 200:
                return time.perf_counter() - server.started
        except OSError:
            pass
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{server.name}: no answer from {model} in {timeout_s} s")
        time.sleep(0.005)


def wait_ready(port, models, timeout_s=300.0):
    """Waits until every model answers GET .../ready with 200 (a peer binds them in turn)."""
    client = Client(port)
    deadline = time.perf_counter() + timeout_s
    try:
        for model in set(models):
            while client.call("GET", f"/v2/models/{model}/ready")[0] != 200:
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"{model} not ready after {timeout_s} s")
                time.sleep(0.05)
    finally:
        client.close()


def _cold_start_sum(text, model):
    """(sum, count) of skiff_serve_cold_start_seconds{model=...} in /metrics text."""
    values = {}
    for part in ("sum", "count"):
        pattern = (rf'^skiff_serve_cold_start_seconds_{part}\{{[^}}]*model="{re.escape(model)}"'
                   r'[^}]*\} (\S+)$')
        values[part] = sum(float(v) for v in re.findall(pattern, text, re.MULTILINE))
    return values["sum"], values["count"]


def cold_model_load(port, model, body, timeout_s=30.0):
    """skiff serve started with --idle-unload: waits until `model` is not loaded (unloaded by
    the idle timer, or never loaded), then sends one request. (client ms, the server's
    skiff_serve_cold_start_seconds of that request in ms)."""
    client = Client(port)
    try:
        deadline = time.perf_counter() + timeout_s
        while True:
            status, data = client.call("POST", "/v2/repository/index", b'{"ready": true}')
            if status != 200:
                raise RuntimeError(f"repository index: HTTP {status}")
            if model not in {m["name"] for m in json.loads(data)}:
                break
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{model} still loaded after {timeout_s} s")
            time.sleep(0.1)
        before = _cold_start_sum(client.call("GET", "/metrics")[1].decode(), model)
        t0 = time.perf_counter()
        client.infer(model, body)
        client_ms = (time.perf_counter() - t0) * 1e3
        after = _cold_start_sum(client.call("GET", "/metrics")[1].decode(), model)
    finally:
        client.close()
    if after[1] != before[1] + 1:
        raise RuntimeError(f"{model}: the request was not counted as a cold start")
    return client_ms, (after[0] - before[0]) * 1e3
