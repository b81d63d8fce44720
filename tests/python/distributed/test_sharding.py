"""Sharded data parallelism (skiff.distributed.sharding): at each level, alone and with a
data-parallel group beside it, training equals one process on the whole batch; the
checkpoint it writes is one process's; the memory a rank holds for parameters, gradients
and optimizer state shrinks by the group size for the sharded parts; wrong set-ups fail
with what was wrong."""
import json
import subprocess
import sys

import numpy as np
import pytest

import skiff
from jobs import WORKERS, describe, job_env, run_job
from skiff.distributed.sharding import group_sharded_parallel, save_group_sharded_model

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


# The share of the unsharded bytes each level leaves a rank of 2 (parameters, gradients,
# optimizer state), measured with skiff.device.memory_allocated.
SHARES = {"os": (1, 1, 0.5), "os_g": (1, 0.5, 0.5), "p_g_os": (0.5, 0.5, 0.5)}


@pytest.mark.parametrize("level", list(SHARES))
def test_each_level_shrinks_what_a_rank_holds(tmp_path, level):
    code, out, logs = run_job(tmp_path, "sharding_memory.py", 2, level, tmp_path / "memory")
    assert code == 0, describe(code, out, logs)
    for rank in range(2):
        got = json.loads((tmp_path / f"memory.{rank}.json").read_text())
        print(level, rank, got)
        for kind, share in zip(("parameters", "gradients", "optimizer_state"), SHARES[level]):
            whole = got["unsharded"][kind]
            assert whole > 60000, (kind, got)  # 4 x 64 x 64 float64 at least
            assert got["sharded"][kind] == pytest.approx(share * whole, rel=0.05), (kind, got)


def _model_and_adam(**options):
    model = skiff.nn.Sequential(skiff.nn.Linear(4, 4), skiff.nn.Linear(4, 2))
    return model, skiff.optimizer.Adam(parameters=model.parameters(), **options)


def test_a_bad_set_up_names_what_was_wrong():
    model, opt = _model_and_adam()
    with pytest.raises(ValueError, match="level 'os_g_p' is not one of 'os', 'os_g', "
                                         "'p_g_os'"):
        group_sharded_parallel(model, opt, "os_g_p")
    extra = skiff.nn.Linear(2, 2)
    bigger = skiff.nn.Sequential(model, extra)
    with pytest.raises(ValueError, match=f"parameter '{extra.weight.name}' of the model is "
                                         f"not in the optimizer's parameters"):
        group_sharded_parallel(bigger, opt, "os")
    with pytest.raises(ValueError, match="the optimizer's parameter '.*' is not a parameter "
                                         "of the model"):
        group_sharded_parallel(model[0], opt, "p_g_os")
    with pytest.raises(TypeError, match="optimizer must be a skiff.optimizer.Optimizer"):
        group_sharded_parallel(model, "adam", "os")
    with pytest.raises(ValueError, match="segment_size must be a positive integer, got 0"):
        group_sharded_parallel(model, opt, "p_g_os", segment_size=0)
    model, opt = _model_and_adam(grad_clip=skiff.nn.ClipGradByNorm(1.0))
    with pytest.raises(ValueError, match="grad_clip ClipGradByNorm is not supported"):
        group_sharded_parallel(model, opt, "os_g")
    with pytest.raises(TypeError, match="model must be what group_sharded_parallel returned"):
        save_group_sharded_model(model, "ckpt", opt)
