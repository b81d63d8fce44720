"""Fixtures of the inference server's tests: model repositories written by jit.save and
skiff compile, and `skiff serve` started on a free 127.0.0.1 port and stopped by the test."""
import contextlib
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import skiff

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BUILD_DIR = pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", HERE.parents[2] / "build"))
SKIFF = BUILD_DIR / "bin" / "skiff"
FEATURES, CLASSES = 16, 4


class MLP(skiff.nn.Layer):
    """W6's shape, smaller: two Linear layers with a ReLU."""

    def __init__(self):
        super().__init__()
        self.fc1 = skiff.nn.Linear(FEATURES, 32)
        self.fc2 = skiff.nn.Linear(32, CLASSES)

    def forward(self, x):
        return self.fc2(skiff.nn.functional.relu(self.fc1(x)))


def save_mlp(folder, seed):
    """Writes an MLP with weights from `seed` as folder/model.skmodel + .skparams; returns
    a numpy function computing what it computes."""
    skiff.seed(seed)
    net = MLP()
    net.eval()
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    skiff.jit.save(net, str(folder / "model"),
                   input_spec=[skiff.static.InputSpec([None, FEATURES], "float32", "x")])
    w1, b1 = net.fc1.weight.numpy(), net.fc1.bias.numpy()
    w2, b2 = net.fc2.weight.numpy(), net.fc2.bias.numpy()
    return lambda x: np.maximum(x @ w1 + b1, 0) @ w2 + b2


BATCHING_CONFIG = """
max_batch_size: 8
dynamic_batching {
  preferred_batch_size: [ 8 ]
  max_queue_delay_microseconds: 200000
}
"""


@pytest.fixture(scope="session")
def repository(tmp_path_factory):
    """A repository: `mlp` (a program; version 1), `batched` (the same program with dynamic
    batching), `compiled` (the program compiled to a library); and the numpy reference."""
    root = tmp_path_factory.mktemp("models")
    reference = save_mlp(root / "mlp" / "1", seed=1)
    shutil.copytree(root / "mlp" / "1", root / "batched" / "1")
    (root / "batched" / "config.pbtxt").write_text(BATCHING_CONFIG)
    skiff.jit.compile(str(root / "mlp" / "1" / "model"), str(root / "compiled" / "build"),
                      shared_library=True)
    (root / "compiled" / "1").mkdir()
    shutil.move(str(root / "compiled" / "build" / "libmodel.so"), root / "compiled" / "1")
    shutil.rmtree(root / "compiled" / "build")
    return root, reference


class Server:
    """A running `skiff serve`: its HTTP port and url, its gRPC port and url (None when it
    serves no gRPC), and stop()."""

    def __init__(self, repository, *args):
        self.process = subprocess.Popen(
            [str(SKIFF), "serve", "--model-repository", str(repository), "--http-port", "0",
             *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        self.first_line = line
        if "HTTP on 127.0.0.1:" not in line:
            rest = self.process.communicate(timeout=10)[0]
            raise RuntimeError(f"skiff serve did not start: {line}{rest}")
        # "skiff serve: HTTP on 127.0.0.1:P, gRPC on 127.0.0.1:Q, models in DIR"
        self.port = int(line.split("HTTP on 127.0.0.1:")[1].split(",")[0])
        self.url = f"127.0.0.1:{self.port}"
        self.grpc_port = self.grpc_url = None
        if "gRPC on 127.0.0.1:" in line:
            self.grpc_port = int(line.split("gRPC on 127.0.0.1:")[1].split(",")[0])
            self.grpc_url = f"127.0.0.1:{self.grpc_port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def serve():
    """serve(repository, *args) -> a Server, stopped at the end of the test."""
    servers = []

    def start(repository, *args):
        servers.append(Server(repository, *args))
        return servers[-1]

    yield start
    for s in servers:
        assert s.stop() == 0, "skiff serve did not stop cleanly on SIGTERM"


def wait_for(condition, timeout=20.0, interval=0.05):
    """Polls `condition` until it is true (returns its value) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


@contextlib.contextmanager
def http_client(server, **kwargs):
    import tritonclient.http as httpclient  # noqa: PLC0415 - a test requirement only
    client = httpclient.InferenceServerClient(server.url, **kwargs)
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def grpc_client(server, **kwargs):
    import tritonclient.grpc as grpcclient  # noqa: PLC0415 - a test requirement only
    assert server.grpc_url, "skiff serve serves no gRPC"
    client = grpcclient.InferenceServerClient(server.grpc_url, **kwargs)
    try:
        yield client
    finally:
        client.close()
