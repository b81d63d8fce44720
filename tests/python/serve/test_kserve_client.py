"""KServe's Python clients, unmodified, against `skiff serve` over HTTP and gRPC. KServe's
pins conflict with the test environment's, so kserve_client_calls.py runs in its own
environment: .venv-kserve (scripts/setup.sh --test makes it from
requirements/kserve_client.txt), or the python named by SKIFF_KSERVE_PYTHON."""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

from conftest import FEATURES, HERE

ROOT = HERE.parents[2]
KSERVE_PYTHON = pathlib.Path(
    os.environ.get("SKIFF_KSERVE_PYTHON", ROOT / ".venv-kserve" / "bin" / "python"))


@pytest.mark.skipif(not KSERVE_PYTHON.exists(),
                    reason=f"no KServe environment at {KSERVE_PYTHON} (scripts/setup.sh --test)")
@pytest.mark.parametrize("model", ["mlp", "compiled"])
def test_kserve_clients_infer_over_http_and_grpc(repository, serve, model):
    root, reference = repository
    server = serve(root)
    x = np.random.default_rng(3).standard_normal((3, FEATURES)).astype(np.float32)
    call = {"http": server.url, "grpc": server.grpc_url, "model": model, "input": x.tolist()}
    run = subprocess.run([str(KSERVE_PYTHON), str(HERE / "kserve_client_calls.py")],
                         input=json.dumps(call), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    expected = reference(x)
    rest, grpc = got["rest"], got["grpc"]
    assert rest["live"] and rest["ready"] and rest["model_ready"]
    assert grpc["live"] and grpc["ready"] and grpc["model_ready"]
    for answer in (rest["json"], rest["binary"], grpc["infer"]):
        assert answer["id"] == "kserve-1" and answer["model"] == model
        np.testing.assert_allclose(np.array(answer["values"]), expected, rtol=1e-5, atol=1e-5)
    status, body = rest["unknown"]
    assert status == 404 and "no_such_model" in body, rest["unknown"]
    code, details = grpc["unknown"]
    assert code == "NOT_FOUND" and "no_such_model" in details, grpc["unknown"]
