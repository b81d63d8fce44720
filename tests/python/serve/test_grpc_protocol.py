"""skiff serve's gRPC service (inference.GRPCInferenceService) through Triton's own client
(tritonclient.grpc), unmodified: health, server and model metadata, model config,
readiness, inference with raw and with typed tensor contents, the repository API, errors
with their gRPC codes, the token, the client's deadline and dynamic batching."""
import contextlib
import re
import subprocess
import threading

import numpy as np
import pytest
from conftest import CLASSES, FEATURES, SKIFF, grpc_client, save_mlp, wait_for
from test_function_semantics import metric

grpcclient = pytest.importorskip("tritonclient.grpc")
grpc = pytest.importorskip("grpc")
service_pb2 = grpcclient.service_pb2
service_pb2_grpc = pytest.importorskip("tritonclient.grpc.service_pb2_grpc")
InferenceServerException = pytest.importorskip("tritonclient.utils").InferenceServerException


def fp32_input(x, name="x"):
    inp = grpcclient.InferInput(name, list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    return inp


def infer(client, model, x, version="", **kwargs):
    out_name = client.get_model_metadata(model).outputs[0].name
    result = client.infer(model, [fp32_input(x)], model_version=version,
                          outputs=[grpcclient.InferRequestedOutput(out_name)], **kwargs)
    return result.as_numpy(out_name), result.get_response()


@contextlib.contextmanager
def raises_code(code, match):
    """pytest.raises for an InferenceServerException of gRPC status `code` whose message
    matches `match`."""
    with pytest.raises(InferenceServerException, match=match) as info:
        yield info
    assert info.value.status() == f"StatusCode.{code}", info.value


def test_health_and_server_metadata(repository, serve):
    server = serve(repository[0])
    with grpc_client(server) as c:
        assert c.is_server_live() and c.is_server_ready()
        meta = c.get_server_metadata()
        assert meta.name == "skiff" and "model_repository" in meta.extensions


def test_model_metadata_config_and_readiness(repository, serve):
    server = serve(repository[0])
    with grpc_client(server) as c:
        meta = c.get_model_metadata("batched")
        assert meta.name == "batched" and list(meta.versions) == ["1"]
        assert meta.platform == "skiff_program"
        assert [(t.name, t.datatype, list(t.shape)) for t in meta.inputs] == \
            [("x", "FP32", [-1, FEATURES])]
        assert list(meta.outputs[0].shape) == [-1, CLASSES]
        config = c.get_model_config("batched").config
        assert config.name == "batched" and config.max_batch_size == 8
        assert config.input[0].name == "x" and list(config.input[0].dims) == [FEATURES]
        assert config.input[0].data_type == grpcclient.model_config_pb2.TYPE_FP32
        assert list(config.output[0].dims) == [CLASSES]
        assert config.instance_group[0].count == 1
        assert config.instance_group[0].kind == \
            grpcclient.model_config_pb2.ModelInstanceGroup.KIND_CPU
        assert list(config.dynamic_batching.preferred_batch_size) == [8]
        assert config.dynamic_batching.max_queue_delay_microseconds == 200000
        assert not c.get_model_config("mlp").config.HasField("dynamic_batching")
        assert c.is_model_ready("mlp") and c.is_model_ready("mlp", "1")
        assert not c.is_model_ready("mlp", "7")
        assert c.get_model_metadata("compiled").platform == "skiff_compiled"


@pytest.mark.parametrize("model", ["mlp", "batched", "compiled"])
def test_inference_matches_the_model(repository, serve, model):
    root, reference = repository
    server = serve(root)
    x = np.random.default_rng(3).standard_normal((3, FEATURES)).astype(np.float32)
    with grpc_client(server) as c:
        y, response = infer(c, model, x)
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)
    assert response.model_name == model and response.model_version == "1"
    assert response.outputs[0].datatype == "FP32" and list(response.outputs[0].shape) == [3,
                                                                                          CLASSES]


def test_every_output_when_none_is_named_and_the_request_id(repository, serve):
    root, reference = repository
    server = serve(root)
    x = np.ones((1, FEATURES), np.float32)
    with grpc_client(server) as c:
        result = c.infer("mlp", [fp32_input(x)], model_version="1", request_id="req-42")
        assert result.get_response().id == "req-42"
        out = result.get_response().outputs[0].name
        np.testing.assert_allclose(result.as_numpy(out), reference(x), rtol=1e-5, atol=1e-5)


def raw_stub(server):
    """The protocol's own stub over a channel to `server`, for requests tritonclient would
    refuse to build."""
    channel = grpc.insecure_channel(server.grpc_url)
    return channel, service_pb2_grpc.GRPCInferenceServiceStub(channel)


def infer_request(x, datatype="FP32", name="x"):
    request = service_pb2.ModelInferRequest(model_name="mlp")
    tensor = request.inputs.add(name=name, datatype=datatype)
    tensor.shape.extend(x.shape)
    return request, tensor


def test_typed_contents_are_read_like_raw_contents(repository, serve):
    root, reference = repository
    server = serve(root)
    x = np.random.default_rng(4).standard_normal((2, FEATURES)).astype(np.float32)
    request, tensor = infer_request(x)
    tensor.contents.fp32_contents.extend(x.ravel().tolist())
    channel, stub = raw_stub(server)
    with channel:
        reply = stub.ModelInfer(request, timeout=30)
    y = np.frombuffer(reply.raw_output_contents[0], np.float32).reshape(tuple(
        reply.outputs[0].shape))
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("change,message", [
    (lambda r, t: r.raw_input_contents.append(b"\0" * 12),
     "input 'x': raw_input_contents holds 12 bytes but shape .* needs 128 bytes"),
    (lambda r, t: t.contents.fp32_contents.extend([1.0] * 5),
     "input 'x': fp32_contents holds 5 values but shape .* has 32 elements"),
    (lambda r, t: t.contents.int64_contents.extend([1] * 32),
     "input 'x': datatype FP32 takes its values in fp32_contents, got int64_contents"),
    (lambda r, t: r.raw_input_contents.extend([b"\0" * 128] * 2),
     "raw_input_contents has 2 entries but the request has 1 inputs"),
])
def test_contents_that_do_not_fit_the_input_are_invalid(repository, serve, change, message):
    server = serve(repository[0])
    request, tensor = infer_request(np.zeros((2, FEATURES), np.float32))
    change(request, tensor)
    channel, stub = raw_stub(server)
    with channel, pytest.raises(grpc.RpcError) as error:
        stub.ModelInfer(request, timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert re.search(message, error.value.details()), error.value.details()


def test_bad_inputs_are_invalid_and_name_the_input(repository, serve):
    server = serve(repository[0])
    x = np.zeros((2, FEATURES), np.float32)
    with grpc_client(server) as c:
        with raises_code("INVALID_ARGUMENT", "no input 'y'"):
            c.infer("mlp", [fp32_input(x, name="y")])
        with raises_code("INVALID_ARGUMENT", "input 'x'.*shape"):
            c.infer("mlp", [fp32_input(np.zeros((2, FEATURES + 1), np.float32))])
        wrong_type = grpcclient.InferInput("x", [2, FEATURES], "INT64")
        wrong_type.set_data_from_numpy(np.zeros((2, FEATURES), np.int64))
        with raises_code("INVALID_ARGUMENT", "input 'x'.*(FP32|INT64)"):
            c.infer("mlp", [wrong_type])
        with raises_code("INVALID_ARGUMENT", "output 'nope'"):
            c.infer("mlp", [fp32_input(x)], outputs=[grpcclient.InferRequestedOutput("nope")])


def test_unknown_models_and_versions_are_not_found(repository, serve):
    server = serve(repository[0])
    x = np.zeros((1, FEATURES), np.float32)
    with grpc_client(server) as c:
        with raises_code("NOT_FOUND", "no model 'nope'"):
            c.get_model_metadata("nope")
        with raises_code("NOT_FOUND", "no model 'nope'"):
            c.infer("nope", [fp32_input(x)])
        with raises_code("NOT_FOUND", "no version 3"):
            c.infer("mlp", [fp32_input(x)], model_version="3")
        assert not c.is_model_ready("mlp", "7") and not c.is_model_ready("nope")
        with raises_code("INVALID_ARGUMENT", "version must be a whole number"):
            c.get_model_config("mlp", "v1")


def test_repository_index_load_and_unload(repository, serve):
    server = serve(repository[0])
    with grpc_client(server) as c:
        def states():
            return {m.name: m.state for m in c.get_model_repository_index().models}

        assert states() == {"mlp": "UNAVAILABLE", "batched": "UNAVAILABLE",
                            "compiled": "UNAVAILABLE"}
        c.load_model("mlp")
        assert states()["mlp"] == "READY"
        assert [m.version for m in c.get_model_repository_index().models if m.name == "mlp"] == \
            ["1"]
        c.unload_model("mlp")
        assert states()["mlp"] == "UNAVAILABLE"
        infer(c, "mlp", np.zeros((2, FEATURES), np.float32))
        assert states()["mlp"] == "READY"
        with raises_code("NOT_FOUND", "nope"):
            c.load_model("nope")
        with raises_code("INVALID_ARGUMENT", "the load parameter 'config' is not supported"):
            c.load_model("mlp", config='{"max_batch_size": 4}')
    assert metric(server, "skiff_serve_requests_total", model="mlp", version="1",
                  code="200") == 1


def test_token_is_needed_but_for_health(repository, serve, tmp_path):
    token = "s3cret-token-0123456789"
    (tmp_path / "token").write_text(token + "\n")
    server = serve(repository[0], "--token-file", str(tmp_path / "token"))
    with grpc_client(server) as c:
        assert c.is_server_live() and c.is_server_ready()
        with raises_code("UNAUTHENTICATED", "token"):
            c.get_model_repository_index()
        with raises_code("UNAUTHENTICATED", "token"):
            c.infer("mlp", [fp32_input(np.zeros((1, FEATURES), np.float32))],
                    headers={"authorization": "Bearer wrong"})
        meta = c.get_model_metadata("mlp", headers={"authorization": f"Bearer {token}"})
        assert meta.name == "mlp"


def test_the_clients_deadline_is_the_requests(tmp_path, serve):
    root = tmp_path / "models"
    save_mlp(root / "slow" / "1", seed=2)
    (root / "slow" / "config.pbtxt").write_text(
        "max_batch_size: 8\ndynamic_batching { preferred_batch_size: [ 8 ] "
        "max_queue_delay_microseconds: 3000000 }\n")
    server = serve(root, "--preload")
    with grpc_client(server) as c:
        with raises_code("DEADLINE_EXCEEDED", "Deadline"):
            c.infer("slow", [fp32_input(np.zeros((1, FEATURES), np.float32))],
                    client_timeout=0.3)
    # The server gave up on it too: answered 504, not run after its queue delay.
    assert wait_for(lambda: metric(server, "skiff_serve_requests_total", model="slow",
                                   version="1", code="504") == 1, timeout=10)
    assert metric(server, "skiff_serve_requests_total", model="slow", version="1",
                  code="200") == 0


def test_dynamic_batching_merges_async_calls(repository, serve):
    root, reference = repository
    server = serve(root)
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((1, FEATURES)).astype(np.float32) for _ in range(8)]
    results, done = [None] * len(xs), threading.Semaphore(0)
    with grpc_client(server) as c:
        c.load_model("batched")
        out = c.get_model_metadata("batched").outputs[0].name

        def callback(i, result, error):
            results[i] = error if error else result.as_numpy(out)
            done.release()

        for i, x in enumerate(xs):
            c.async_infer("batched", [fp32_input(x)],
                          lambda result, error, i=i: callback(i, result, error))
        for _ in xs:
            assert done.acquire(timeout=30)
    for x, y in zip(xs, results):  # each caller gets its own row back
        assert isinstance(y, np.ndarray), y
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)
    batches = metric(server, "skiff_serve_batches_total", model="batched", version="1")
    answered = metric(server, "skiff_serve_batched_requests_total", model="batched", version="1")
    assert answered == 8 and batches < 8, (batches, answered)


def test_grpc_port_off_serves_http_only(repository, serve):
    server = serve(repository[0], "--grpc-port", "off")
    assert server.grpc_url is None and "gRPC" not in server.first_line


def test_a_message_over_the_limit_is_resource_exhausted(repository, serve):
    server = serve(repository[0], "--max-body-mb", "1")
    x = np.zeros((20000, FEATURES), np.float32)  # 1.28 MB
    with grpc_client(server) as c, raises_code("RESOURCE_EXHAUSTED", "larger than max"):
        c.infer("batched", [fp32_input(x)])


def test_the_same_port_for_both_protocols_is_refused(repository):
    result = subprocess.run([str(SKIFF), "serve", "--model-repository", str(repository[0]),
                             "--http-port", "8123", "--grpc-port", "8123"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--grpc-port and --http-port are both 8123" in result.stderr


def test_inference_statistics(repository, serve):
    server = serve(repository[0])
    x = np.zeros((2, FEATURES), np.float32)
    with grpc_client(server) as c:
        for _ in range(2):
            infer(c, "mlp", x)
        stats = c.get_inference_statistics("mlp", as_json=True)["model_stats"]
        assert [(s["name"], s["version"]) for s in stats] == [("mlp", "1")]
        s = stats[0]
        assert int(s["inference_stats"]["success"]["count"]) == 2
        assert int(s["execution_count"]) == 2 and int(s["inference_stats"]["compute_infer"]["ns"]) > 0
        with raises_code("NOT_FOUND", "no model 'nope'"):
            c.get_inference_statistics("nope")


@pytest.mark.parametrize("name", ["..", ".", "../models", "a/b"])
def test_a_model_name_never_leaves_the_repository(repository, serve, name):
    server = serve(repository[0])
    with grpc_client(server) as c:
        with raises_code("NOT_FOUND", "no model"):
            c.get_model_metadata(name)
        with raises_code("NOT_FOUND", "no model"):
            c.load_model(name)
        assert not c.is_model_ready(name)
