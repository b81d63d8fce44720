"""A saved program as a job: `skiff run` runs the uploaded .skmodel with its parameters
and inputs (the job's args), the fetched outputs are kept and equal the program's run in
this process; a program job asks for one process."""
import json
import os

import numpy as np
import pytest

import skiff
import skiff.static as st
from skiff.cloud import CloudError
from skiff.cloud.archive import pack
from skiff.cloud.client import _multipart


def save_program(folder):
    """A small fc layer saved as folder/model.skmodel + .skparams, its input as x.npy;
    returns (the fetched variable's name, what the program computes for x)."""
    x_value = np.random.default_rng(3).standard_normal([4, 3]).astype(np.float32)
    np.save(os.path.join(folder, "x.npy"), x_value)
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x = st.data("x", [None, 3], "float32")
            y = st.nn.fc(x, 2, activation="relu")
            exe = st.Executor()
            exe.run(startup)
            (expected,) = exe.run(main, feed={"x": x_value}, fetch_list=[y])
            st.save_inference_model(os.path.join(folder, "model"), [x], [y], exe)
    finally:
        skiff.disable_static()
    return y.name, expected


def test_a_saved_program_runs_as_a_job(service, tmp_path):
    client = service.client("ada")
    name, expected = save_program(str(tmp_path))
    job = client.submit(program="model.skmodel", directory=str(tmp_path), keep=["out"],
                        args=["--params", "model.skparams", "--feed", "x=x.npy",
                              "--fetch", name, "--out", "out"])
    assert job["name"] == "model.skmodel"
    final = client.wait(job["id"], timeout=60)
    log = "\n".join(text for _, text in client.log(job["id"])["lines"])
    assert final["state"] == "succeeded" and final["exit_code"] == 0, log
    assert f"out/{name}.npy" in [f["path"] for f in client.artifacts(job["id"])]
    got = client.download(job["id"], f"out/{name}.npy", str(tmp_path / "got.npy"))
    np.testing.assert_allclose(np.load(got), expected, rtol=1e-6)


def test_a_bad_program_job_fails_with_skiff_runs_error(service, tmp_path):
    """A file that is no program: the job fails, its log says why (skiff run's error)."""
    client = service.client("ada")
    (tmp_path / "broken.skmodel").write_bytes(b"not a program")
    final = client.wait(client.submit(program="broken.skmodel",
                                      directory=str(tmp_path))["id"], timeout=60)
    assert final["state"] == "failed" and final["exit_code"] != 0
    assert "broken.skmodel" in "\n".join(text for _, text in client.log(final["id"])["lines"])


@pytest.mark.parametrize("spec, error", [
    ({"program": "model.skmodel", "workers": "2"}, "runs as one process"),
    ({"program": "model.skmodel", "nproc": 2}, "runs as one process"),
    ({"program": "train.py"}, "saved program (.skmodel)"),
    ({"program": "model.skmodel", "script": "train.py"}, "exactly one of"),
    ({"program": "../model.skmodel"}, "inside the job's directory"),
])
def test_program_specs_refused(service, tmp_path, spec, error):
    client = service.client("ada")
    (tmp_path / "model.skmodel").write_bytes(b"")
    ctype, body = _multipart({
        "spec": (None, json.dumps(spec).encode(), "application/json"),
        "archive": ("work.tar.gz", pack(str(tmp_path)), "application/gzip")})
    with pytest.raises(CloudError) as refused:
        client._json("POST", "/api/jobs", body, ctype)
    assert refused.value.status == 400 and error in refused.value.message
