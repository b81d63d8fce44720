"""skiff serve's HTTP endpoints through Triton's own client (tritonclient.http), unmodified:
health, server and model metadata, model config, readiness, inference with JSON and with
binary tensors, the repository API and /metrics; the program and its compiled library
answer alike."""
import json
import urllib.request

import numpy as np
import pytest
from conftest import CLASSES, FEATURES, http_client, wait_for

tritonclient_http = pytest.importorskip("tritonclient.http")
InferInput, InferRequestedOutput = tritonclient_http.InferInput, tritonclient_http.InferRequestedOutput
InferenceServerException = pytest.importorskip("tritonclient.utils").InferenceServerException


def infer(client, model, x, binary_in=False, binary_out=False, version=""):
    inp = InferInput("x", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=binary_in)
    meta = client.get_model_metadata(model)
    out_name = meta["outputs"][0]["name"]
    result = client.infer(model, [inp], model_version=version,
                          outputs=[InferRequestedOutput(out_name, binary_data=binary_out)])
    return result.as_numpy(out_name), result.get_response()


def test_health_and_server_metadata(repository, serve):
    server = serve(repository[0])
    with http_client(server) as c:
        assert c.is_server_live() and c.is_server_ready()
        meta = c.get_server_metadata()
        assert meta["name"] == "skiff" and "binary_tensor_data" in meta["extensions"]


def test_model_metadata_config_and_readiness(repository, serve):
    server = serve(repository[0])
    with http_client(server) as c:
        meta = c.get_model_metadata("batched")
        assert meta["name"] == "batched" and meta["versions"] == ["1"]
        assert meta["platform"] == "skiff_program"
        assert meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [-1, FEATURES]}]
        assert meta["outputs"][0]["shape"] == [-1, CLASSES]
        config = c.get_model_config("batched")
        assert config["max_batch_size"] == 8
        assert config["dynamic_batching"]["preferred_batch_size"] == [8]
        assert config["input"] == [{"name": "x", "data_type": "TYPE_FP32", "dims": [FEATURES],
                                    "reject_nonfinite": False}]
        assert c.is_model_ready("mlp") and c.is_model_ready("mlp", "1")
        assert not c.is_model_ready("mlp", "7")
        assert c.get_model_metadata("compiled")["platform"] == "skiff_compiled"


@pytest.mark.parametrize("binary_in,binary_out", [(False, False), (True, True), (True, False)])
@pytest.mark.parametrize("model", ["mlp", "batched", "compiled"])
def test_inference_matches_the_model(repository, serve, model, binary_in, binary_out):
    root, reference = repository
    server = serve(root)
    x = np.random.default_rng(3).standard_normal((3, FEATURES)).astype(np.float32)
    with http_client(server) as c:
        y, response = infer(c, model, x, binary_in, binary_out)
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)
    assert response["model_name"] == model and response["model_version"] == "1"


def test_request_id_and_explicit_version(repository, serve):
    root, reference = repository
    server = serve(root)
    x = np.ones((1, FEATURES), np.float32)
    with http_client(server) as c:
        inp = InferInput("x", [1, FEATURES], "FP32")
        inp.set_data_from_numpy(x)
        result = c.infer("mlp", [inp], model_version="1", request_id="req-42")
        assert result.get_response()["id"] == "req-42"
        out = result.get_response()["outputs"][0]["name"]
        np.testing.assert_allclose(result.as_numpy(out), reference(x), rtol=1e-5, atol=1e-5)


def post(server, path, body=b"", headers=None):
    """(status, parsed JSON body) of a raw POST, for requests tritonclient would refuse to
    send."""
    request = urllib.request.Request(f"http://{server.url}{path}", data=body,
                                     headers=headers or {}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_repository_index_load_unload_and_metrics(repository, serve):
    server = serve(repository[0])
    with http_client(server) as c:
        names = {m["name"]: m for m in c.get_model_repository_index()}
        assert set(names) == {"mlp", "batched", "compiled"}
        assert names["mlp"]["state"] == "UNAVAILABLE"  # nothing loads before its first call
        c.load_model("mlp")
        assert {m["name"]: m["state"] for m in c.get_model_repository_index()}["mlp"] == "READY"
        c.unload_model("mlp")
        assert {m["name"]: m["state"] for m in c.get_model_repository_index()}["mlp"] == \
            "UNAVAILABLE"
        infer(c, "mlp", np.zeros((2, FEATURES), np.float32))
    page = urllib.request.urlopen(f"http://{server.url}/metrics", timeout=10).read().decode()
    assert 'skiff_serve_requests_total{model="mlp",version="1",code="200"} 1' in page
    assert 'skiff_serve_cold_start_seconds_count{model="mlp",version="1"} 1' in page
    assert "skiff_serve_models_loaded 1" in page


def test_unknown_models_and_versions_are_404(repository, serve):
    server = serve(repository[0])
    with http_client(server) as c:
        with pytest.raises(InferenceServerException, match="no model 'nope'"):
            c.get_model_metadata("nope")
        x = np.zeros((1, FEATURES), np.float32)
        with pytest.raises(InferenceServerException, match="no version 3"):
            infer(c, "mlp", x, version="3")
    status, body = post(server, "/v2/models/nope/infer", b"{}")
    assert status == 404 and "nope" in body["error"]


def test_access_log_has_one_json_line_per_request(repository, serve, tmp_path):
    log = tmp_path / "access.jsonl"
    server = serve(repository[0], "--access-log", str(log))
    with http_client(server) as c:
        infer(c, "mlp", np.zeros((1, FEATURES), np.float32))
    post(server, "/v2/models/nope/infer", b"{}")

    def logged():  # a line is written once its response has gone out
        return [json.loads(line) for line in log.read_text().splitlines()]

    assert wait_for(lambda: len(logged()) >= 2)
    lines = logged()
    paths = [(r["method"], r["path"], r["status"]) for r in lines]
    assert ("POST", "/v2/models/mlp/infer", 200) in paths
    assert ("POST", "/v2/models/nope/infer", 404) in paths
    for r in lines:
        assert r["remote"] == "127.0.0.1" and r["ms"] >= 0 and r["time"].endswith("Z")


def test_an_int8_model_is_served_as_saved(tmp_path, serve):
    """A PTQ-converted model saved by jit.save runs its int8 products in the server and
    answers what the loaded model computes."""
    from skiff.quantization import PTQ, QuantConfig  # noqa: PLC0415
    from skiff.quantization.observers import AbsmaxObserver, PerChannelAbsmaxObserver  # noqa: PLC0415

    import skiff  # noqa: PLC0415
    skiff.seed(0)
    x = np.random.default_rng(0).standard_normal([8, FEATURES]).astype(np.float32)
    net = skiff.nn.Sequential(skiff.nn.Linear(FEATURES, 32), skiff.nn.ReLU(),
                              skiff.nn.Linear(32, CLASSES))
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(net)
    with skiff.no_grad():
        observed(skiff.to_tensor(x))
    path = tmp_path / "models" / "int8" / "1" / "model"
    skiff.jit.save(ptq.convert(observed), str(path),
                   input_spec=[skiff.static.InputSpec([None, FEATURES], "float32", "x")])
    loaded = skiff.jit.load(str(path))
    assert "quantized_matmul" in [op.type for op in loaded.program().global_block().ops]
    server = serve(tmp_path / "models")
    with http_client(server) as c:
        y, _ = infer(c, "int8", x, binary_in=True, binary_out=True)
    np.testing.assert_allclose(y, loaded(skiff.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-5)


def test_inference_statistics(repository, serve):
    server = serve(repository[0])
    with http_client(server) as c:
        for _ in range(3):
            infer(c, "mlp", np.zeros((2, FEATURES), np.float32))
        with pytest.raises(InferenceServerException):
            c.infer("mlp", [InferInput("y", [1, FEATURES], "FP32").set_data_from_numpy(
                np.zeros((1, FEATURES), np.float32))])
        stats = c.get_inference_statistics("mlp")["model_stats"]
        assert [(s["name"], s["version"]) for s in stats] == [("mlp", "1")]
        s = stats[0]
        assert s["inference_stats"]["success"]["count"] == 3
        assert s["inference_stats"]["fail"]["count"] == 1
        # mlp takes no batch dim of the server's: each request is one inference
        assert s["execution_count"] == 3 and s["inference_count"] == 3
        assert s["inference_stats"]["compute_infer"]["ns"] > 0 and s["last_inference"] > 0
        assert {m["name"] for m in c.get_inference_statistics()["model_stats"]} == {"mlp"}
        with pytest.raises(InferenceServerException, match="no model 'nope'"):
            c.get_inference_statistics("nope")
