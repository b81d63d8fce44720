"""Bad requests get a clear 400 (or 413) naming what was wrong, and never reach a model:
wrong names, shapes and datatypes, broken JSON, a body that lies about its size, values
that do not fit, NaN where the config forbids it, a body over the limit. The server keeps
answering good requests afterwards."""
import json
import struct

import numpy as np
import pytest
from conftest import FEATURES, save_mlp
from test_http_protocol import post

GOOD = {"inputs": [{"name": "x", "shape": [1, FEATURES], "datatype": "FP32",
                    "data": [0.5] * FEATURES}]}


def request(**input_fields):
    body = json.loads(json.dumps(GOOD))
    body["inputs"][0].update(input_fields)
    return json.dumps(body).encode()


@pytest.fixture(scope="module")
def guarded_repository(tmp_path_factory):
    root = tmp_path_factory.mktemp("guarded")
    save_mlp(root / "guarded" / "1", seed=2)
    (root / "guarded" / "config.pbtxt").write_text(
        'max_batch_size: 4\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 16 ] '
        "reject_nonfinite: true } ]\n")
    return root


CASES = [
    ("wrong input name", request(name="y"), 400, ["no input 'y'", "x"]),
    ("wrong datatype", request(datatype="INT32", data=[1] * FEATURES), 400,
     ["'x' must be FP32", "INT32"]),
    ("wrong shape", request(shape=[1, 3], data=[0.5] * 3), 400, ["'x'", "[batch] + [16]", "[1, 3]"]),
    ("batch over the max", request(shape=[5, FEATURES], data=[0.5] * 5 * FEATURES), 400,
     ["batch of 5", "1 to 4"]),
    ("count differs from shape", request(data=[0.5] * 3), 400, ["'x'", "16", "3"]),
    ("unknown datatype", request(datatype="FP12"), 400, ["FP12"]),
    ("value does not fit", request(datatype="UINT8", data=[300] * FEATURES), 400, ["300"]),
    ("NaN refused", request(data=[0.5] * 15 + ["NaN"]), 400, ["x"]),
    ("broken JSON", b'{"inputs": [', 400, []),
    ("no inputs", b"{}", 400, ["inputs"]),
]


@pytest.mark.parametrize("name,body,status,words", CASES, ids=[c[0] for c in CASES])
def test_bad_request_is_refused_with_a_reason(guarded_repository, serve, name, body, status,
                                              words):
    server = serve(guarded_repository)
    got, reply = post(server, "/v2/models/guarded/infer", body,
                      {"Content-Type": "application/json"})
    assert got == status, reply
    for w in words:
        assert w in reply["error"], reply["error"]
    ok, out = post(server, "/v2/models/guarded/infer", request(),
                   {"Content-Type": "application/json"})
    assert ok == 200, out


def test_nan_in_binary_data_is_refused(guarded_repository, serve):
    server = serve(guarded_repository)
    header = json.dumps({"inputs": [{"name": "x", "shape": [1, FEATURES], "datatype": "FP32",
                                     "parameters": {"binary_data_size": 4 * FEATURES}}]}).encode()
    values = np.full(FEATURES, 0.25, np.float32)
    values[7] = np.nan
    status, reply = post(server, "/v2/models/guarded/infer", header + values.tobytes(),
                         {"Inference-Header-Content-Length": str(len(header))})
    assert status == 400 and "NaN" in reply["error"] and "element 7" in reply["error"]


def test_a_body_that_lies_about_its_size(guarded_repository, serve):
    server = serve(guarded_repository)
    header = json.dumps({"inputs": [{"name": "x", "shape": [1, FEATURES], "datatype": "FP32",
                                     "parameters": {"binary_data_size": 4 * FEATURES}}]}).encode()
    data = struct.pack(f"{FEATURES}f", *([1.0] * FEATURES))
    status, reply = post(server, "/v2/models/guarded/infer", header + data[:-8],
                         {"Inference-Header-Content-Length": str(len(header))})
    assert status == 400, reply
    status, reply = post(server, "/v2/models/guarded/infer", header,
                         {"Inference-Header-Content-Length": str(len(header) + 100)})
    assert status == 400 and "header" in reply["error"].lower(), reply
    status, reply = post(server, "/v2/models/guarded/infer", header + data,
                         {"Inference-Header-Content-Length": "12abc"})
    assert status == 400 and "12abc" in reply["error"]


def test_a_body_over_the_limit_is_413(guarded_repository, serve):
    server = serve(guarded_repository, "--max-body-mb", "1")
    status, _ = post(server, "/v2/models/guarded/infer", b" " * (2 << 20))
    assert status == 413


@pytest.mark.parametrize("name", ["..", ".", ".hidden", "%2e%2e", "a%2Fb", "..%2Fguarded"])
def test_a_model_name_never_leaves_the_repository(guarded_repository, serve, name):
    """The repository's parent holds a loadable model; a name that would reach it (or any
    path outside the repository) is no model."""
    (guarded_repository.parent / "1").mkdir(exist_ok=True)
    save_mlp(guarded_repository.parent / "1", seed=4)  # ".." would look like a model
    server = serve(guarded_repository)
    import http.client  # noqa: PLC0415
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    for method, path, body in [("GET", f"/v2/models/{name}", None),
                               ("POST", f"/v2/models/{name}/infer", request()),
                               ("POST", f"/v2/repository/models/{name}/load", b"")]:
        conn.request(method, path, body)
        reply = conn.getresponse()
        assert reply.status in (400, 404), (method, path, reply.status)
        reply.read()
