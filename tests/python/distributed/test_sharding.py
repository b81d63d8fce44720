"""Sharded data parallelism (skiff.distributed.sharding): at each level, alone and with a
data-parallel group beside it, training equals one process on the whole batch; the
checkpoint it writes is one process's; the memory a rank holds for parameters, gradients
and optimizer state shrinks by the group size for the sharded parts; wrong set-ups fail
with what was wrong."""
import subprocess
import sys

import numpy as np
import pytest

import skiff
from jobs import WORKERS, describe, job_env, load_worker, run_job
from skiff.distributed.sharding import group_sharded_parallel

CASES = [  # level, sharding degree, data-parallel degree, segment_size
    ("os", 2, 1, 1), ("os_g", 2, 1, 1), ("p_g_os", 2, 1, 1),
    ("os", 2, 2, 1), ("os_g", 2, 2, 1), ("p_g_os", 2, 2, 100),
]


def _reference(tmp_path, ckpt):
    out = tmp_path / "reference.npz"
    done = subprocess.run([sys.executable, str(WORKERS / "sharding_reference.py"), str(out),
                           str(ckpt)], env=job_env(), capture_output=True, text=True,
                          timeout=120, cwd=WORKERS)
    assert done.returncode == 0, done.stdout + done.stderr
    return np.load(out)


@pytest.mark.parametrize("level,sharding,dp,segment", CASES,
                         ids=[f"{c[0]}-sharding{c[1]}xdp{c[2]}" for c in CASES])
def test_sharded_training_equals_one_process(tmp_path, level, sharding, dp, segment):
    nproc = sharding * dp
    prefix = tmp_path / "run"
    code, out, logs = run_job(tmp_path, "sharding_train.py", nproc, level, sharding, dp,
                              segment, prefix)
    assert code == 0, describe(code, out, logs)
    ref = _reference(tmp_path, f"{prefix}.ckpt")
    ranks = [np.load(f"{prefix}.{r}.npz") for r in range(nproc)]
    losses = np.mean([r["losses"] for r in ranks], axis=0)
    np.testing.assert_allclose(losses, ref["losses"], rtol=0, atol=1e-9)
    for key in (k for k in ref.files if k.startswith("param/")):
        for r in ranks:
            np.testing.assert_allclose(r[key], ref[key], rtol=0, atol=1e-9, err_msg=key)
    # the checkpoint, loaded by one process, is the reference's state and trains on as it
    for key in (k for k in ref.files if k.startswith(("param/", "opt/"))):
        np.testing.assert_allclose(ref["loaded/" + key], ref[key], rtol=0, atol=1e-9,
                                   err_msg=key)
    assert abs(float(ref["loaded_next_loss"]) - float(ref["next_loss"])) < 1e-9
    for key in (k for k in ref.files if k.startswith("next/")):
        np.testing.assert_allclose(ref["loaded_" + key], ref[key], rtol=0, atol=1e-9,
                                   err_msg=key)
