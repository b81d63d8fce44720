"""Models as functions: loaded by their first request (a cold start, counted), unloaded
after --idle-unload seconds without requests and loaded again by the next; a new version
swapped in while requests run (none fails); concurrent requests joined into batches, each
caller getting its own rows; overload refused at once (429 from a full queue, 503 past
--max-concurrency); a token checked before anything else."""
import concurrent.futures
import re
import shutil
import threading
import urllib.request

import numpy as np
import pytest
from conftest import FEATURES, http_client, save_mlp, wait_for
from test_http_protocol import infer

InferenceServerException = pytest.importorskip("tritonclient.utils").InferenceServerException


def metric(server, name, **labels):
    page = urllib.request.urlopen(f"http://{server.url}/metrics", timeout=10).read().decode()
    selector = ",".join(f'{k}="{v}"' for k, v in labels.items())
    series = re.escape(name + ("{" + selector + "}" if selector else ""))
    m = re.search("^" + series + r" (\S+)$", page, re.MULTILINE)
    return float(m.group(1)) if m else 0.0


def states(client):
    return {m["name"]: m["state"] for m in client.get_model_repository_index()}


def test_idle_model_unloads_and_cold_starts_again(repository, serve):
    server = serve(repository[0], "--idle-unload", "1")
    x = np.ones((1, FEATURES), np.float32)
    cold_starts = {"model": "compiled", "version": "1"}
    with http_client(server) as c:
        infer(c, "compiled", x)
        assert states(c)["compiled"] == "READY"
        before = metric(server, "skiff_serve_cold_start_seconds_count", **cold_starts)
        assert wait_for(lambda: states(c)["compiled"] == "UNAVAILABLE", timeout=10)
        assert metric(server, "skiff_serve_models_loaded") == 0
        y, _ = infer(c, "compiled", x)  # its metadata needs no load: the request cold starts
        assert states(c)["compiled"] == "READY"
    np.testing.assert_allclose(y, repository[1](x), rtol=1e-5, atol=1e-5)
    assert metric(server, "skiff_serve_cold_start_seconds_count", **cold_starts) == before + 1
    assert metric(server, "skiff_serve_cold_start_seconds_sum", **cold_starts) > 0


def test_dynamic_batching_merges_concurrent_requests(repository, serve):
    root, reference = repository
    server = serve(root)
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((1, FEATURES)).astype(np.float32) for _ in range(8)]
    with http_client(server, concurrency=8) as c:
        c.load_model("batched")
        out = c.get_model_metadata("batched")["outputs"][0]["name"]
        inputs = []
        for x in xs:
            inp = tritonclient_http().InferInput("x", [1, FEATURES], "FP32")
            inp.set_data_from_numpy(x)
            inputs.append(inp)
        pending = [c.async_infer("batched", [inp]) for inp in inputs]
        ys = [p.get_result().as_numpy(out) for p in pending]
    for x, y in zip(xs, ys):  # each caller gets its own row back
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-5)
    batches = metric(server, "skiff_serve_batches_total", model="batched", version="1")
    answered = metric(server, "skiff_serve_batched_requests_total", model="batched", version="1")
    assert answered == 8 and batches < 8, (batches, answered)


def tritonclient_http():
    import tritonclient.http  # noqa: PLC0415
    return tritonclient.http


def test_new_version_swaps_in_while_requests_run(tmp_path, serve):
    root = tmp_path / "models"
    old = save_mlp(root / "m" / "1", seed=11)
    server = serve(root, "--repository-poll-secs", "1")
    x = np.full((2, FEATURES), 0.3, np.float32)
    errors, answers = [], []
    stop = threading.Event()

    def call_in_a_loop():
        with http_client(server) as c:
            while not stop.is_set():
                try:
                    y, r = infer(c, "m", x)
                    answers.append((r["model_version"], y))
                except Exception as e:  # noqa: BLE001 - every failure is what the test counts
                    errors.append(e)

    threads = [threading.Thread(target=call_in_a_loop) for _ in range(3)]
    for t in threads:
        t.start()
    assert wait_for(lambda: len(answers) > 10)
    new = save_mlp(root / "m" / "2.tmp", seed=12)
    shutil.move(str(root / "m" / "2.tmp"), root / "m" / "2")
    assert wait_for(lambda: any(v == "2" for v, _ in answers[-5:]), timeout=30)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    for version, y in answers:
        np.testing.assert_allclose(y, (old if version == "1" else new)(x), rtol=1e-5, atol=1e-5)


def status_of(server, calls):
    """200 when `calls` (a function of a client) succeeds, else the HTTP status it failed with."""
    with http_client(server) as c:
        try:
            calls(c)
            return 200
        except InferenceServerException as e:
            return int(e.status()) if e.status() else str(e)


def test_a_full_queue_answers_429_at_once(tmp_path, serve):
    root = tmp_path / "models"
    save_mlp(root / "q" / "1", seed=3)
    (root / "q" / "config.pbtxt").write_text(
        "max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 2000000 "
        "default_queue_policy { max_queue_size: 2 } }\n")
    server = serve(root, "--preload")
    x = np.ones((1, FEATURES), np.float32)
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(lambda _: status_of(server, lambda c: infer(c, "q", x)), range(6)))
    assert codes.count(429) >= 3 and codes.count(200) >= 1, codes


def test_past_max_concurrency_answers_503(repository, serve):
    server = serve(repository[0], "--max-concurrency", "1")
    x = np.ones((1, FEATURES), np.float32)

    def twenty_calls(c):
        for _ in range(20):
            infer(c, "batched", x)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(lambda _: status_of(server, twenty_calls), range(4)))
    assert 503 in codes, codes
    assert metric(server, "skiff_serve_requests_total", model="batched", version="",
                  code="503") >= 1


def test_token_is_checked_before_anything_else(repository, serve, tmp_path):
    token = "s3cret-token-0123456789"
    (tmp_path / "token").write_text(token + "\n")
    server = serve(repository[0], "--token-file", str(tmp_path / "token"))
    with http_client(server) as c:
        assert c.is_server_live()  # health needs no token
        with pytest.raises(InferenceServerException, match="token"):
            c.get_model_repository_index()
        with pytest.raises(InferenceServerException, match="token"):
            c.get_model_metadata("mlp", headers={"Authorization": "Bearer wrong"})
        meta = c.get_model_metadata("mlp", headers={"Authorization": f"Bearer {token}"})
        assert meta["name"] == "mlp"


def test_made_up_names_make_no_series_of_their_own(repository, serve):
    """Refused requests count under the model and version the repository has; names a
    request makes up count under "" (they would otherwise grow /metrics without bound)."""
    from test_http_protocol import post  # noqa: PLC0415
    server = serve(repository[0])
    for i in range(5):
        assert post(server, f"/v2/models/nope{i}/infer", b"{}")[0] == 404
        assert post(server, f"/v2/models/mlp/versions/{i + 7}/infer", b"{}")[0] == 404
    assert post(server, "/v2/models/mlp/infer", b"{")[0] == 400
    page = urllib.request.urlopen(f"http://{server.url}/metrics", timeout=10).read().decode()
    assert "nope" not in page and 'version="7"' not in page
    assert metric(server, "skiff_serve_requests_total", model="", version="", code="404") == 5
    assert metric(server, "skiff_serve_requests_total", model="mlp", version="", code="404") == 5
    assert metric(server, "skiff_serve_requests_total", model="mlp", version="", code="400") == 1
