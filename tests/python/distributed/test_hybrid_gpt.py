"""W9's GPT trained in each hybrid layout that fits 4 ranks equals one process on the
same global batches: losses and final parameters to 1e-9 (float64)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from jobs import WORKERS, job_env, run_job


def train(tmp_path, configs, nproc, *more, name="out"):
    """The losses and whole parameters (every stage's) of W9 trained in the layout."""
    out = tmp_path / name
    if nproc == 1:
        done = subprocess.run([sys.executable, str(WORKERS / "gpt_hybrid.py"), "{}", str(out),
                               *map(str, more)],
                              env=job_env(), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    else:
        code, log, logs = run_job(tmp_path, "gpt_hybrid.py", nproc, json.dumps(configs), out,
                                  *more, timeout=300)
        assert code == 0, log + "\n".join(logs.values())
    merged = {}
    for stage in sorted(tmp_path.glob(f"{name}.*.npz")):
        merged.update(np.load(stage))
    return merged


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    return train(tmp_path_factory.mktemp("gpt_one"), {}, 1)


LAYOUTS = {"dp2": ({"dp_degree": 2}, 2), "mp2": ({"mp_degree": 2}, 2),
           "pp2": ({"pp_degree": 2}, 2),
           "dp2xmp2": ({"dp_degree": 2, "mp_degree": 2}, 4),
           "dp2xpp2": ({"dp_degree": 2, "pp_degree": 2}, 4),
           "mp2xpp2": ({"mp_degree": 2, "pp_degree": 2}, 4),
           "sharding2": ({"sharding_degree": 2, "stage": 2}, 2),
           "sharding2xdp2": ({"sharding_degree": 2, "dp_degree": 2}, 4)}


@pytest.mark.parametrize("layout", list(LAYOUTS) + ["pp2_recompute"])
def test_layout_trains_like_one_process(tmp_path, one_process, layout):
    if layout == "pp2_recompute":
        got = train(tmp_path, {"pp_degree": 2}, 2, "--recompute-interval", "1")
    else:
        configs, nproc = LAYOUTS[layout]
        got = train(tmp_path, configs, nproc)
    assert sorted(got) == sorted(one_process)
    np.testing.assert_allclose(got["losses"], one_process["losses"], rtol=0, atol=1e-9)
    assert one_process["losses"][-1] < one_process["losses"][0]  # it learns
    for name in one_process:
        np.testing.assert_allclose(got[name], one_process[name], rtol=0, atol=1e-9,
                                   err_msg=name)


def test_a_checkpoint_loads_under_another_layout(tmp_path, one_process):
    """Saved by dp2 x mp2 ranks, loaded by one process; saved by one process, loaded by
    mp2 ranks: the parameters come back whole, or as each rank's slice."""
    ckpt = tmp_path / "ckpt"
    trained = train(tmp_path, {"dp_degree": 2, "mp_degree": 2}, 4, "--save", ckpt)
    loaded = train(tmp_path, {}, 1, "--load", ckpt, "--steps", "0", name="single")
    back = tmp_path / "back"
    train(tmp_path, {}, 1, "--load", ckpt, "--steps", "0", "--save", back, name="resaved")
    split = train(tmp_path, {"mp_degree": 2}, 2, "--load", back, "--steps", "0", name="mp")
    for name in one_process:
        if name == "losses":
            continue
        np.testing.assert_array_equal(loaded[name], trained[name], err_msg=name)
        np.testing.assert_array_equal(split[name], trained[name], err_msg=name)


@pytest.mark.parametrize("configs,args,message", [
    ({"pp_degree": 2}, ["--layers", "3"],
     "PipelineLayer: 3 layers cannot be split into 2 stages by seg_method 'layer:Block'"),
    ({"mp_degree": 2}, ["--heads", "3", "--hidden", "30"],
     "GPT: 3 heads cannot be split over the model-parallel degree 2"),
], ids=["pp_layers", "mp_heads"])
def test_a_model_that_does_not_split_fails_clearly(tmp_path, configs, args, message):
    code, log, logs = run_job(tmp_path, "gpt_hybrid.py", 2, json.dumps(configs),
                              tmp_path / "out", *args, timeout=120)
    text = log + "\n".join(logs.values())
    assert code != 0 and message in text, text


@pytest.mark.parametrize("configs,nproc", [({"mp_degree": 2}, 2), ({"pp_degree": 2}, 2),
                                           ({"mp_degree": 2, "pp_degree": 2}, 4)],
                         ids=["mp2", "pp2", "mp2xpp2"])
def test_gradients_clipped_by_the_whole_models_norm(tmp_path, configs, nproc):
    """ClipGradByGlobalNorm (0.05: every step clips) takes the norm of the whole model."""
    want = train(tmp_path, {}, 1, "--clip", "0.05", name="one")
    got = train(tmp_path, configs, nproc, "--clip", "0.05")
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("configs,nproc", [({"mp_degree": 2}, 2), ({"pp_degree": 2}, 2),
                                           ({"mp_degree": 2, "pp_degree": 2}, 4)],
                         ids=["mp2", "pp2", "mp2xpp2"])
def test_each_rank_holds_its_part_of_the_parameters_and_optimizer_state(tmp_path, configs,
                                                                        nproc):
    """Bytes held after a step without gradients (parameters, AdamW's moments), measured
    with the allocator's counts: each rank's share of one process's, by the parameters it
    holds (split ones halved, replicated ones whole, a stage's own layers)."""
    train(tmp_path, {}, 1, "--steps", "1", name="one")
    one = json.loads((tmp_path / "one.0.memory.json").read_text())
    train(tmp_path, configs, nproc, "--steps", "1")
    for rank in range(nproc):
        mine = json.loads((tmp_path / f"out.{rank}.memory.json").read_text())
        share = mine["elements"] / one["elements"]
        assert share < 0.8, share
        expected = one["state_bytes"] * share
        assert abs(mine["state_bytes"] - expected) <= 0.03 * expected, (rank, mine, one)


def test_float32_layouts_agree_with_one_process_to_1e4(tmp_path):
    """In float32 the sums run in other orders: dp2 x mp2 and mp2 x pp2 stay within 1e-4."""
    want = train(tmp_path, {}, 1, "--dtype", "float32", name="one")
    for configs in ({"dp_degree": 2, "mp_degree": 2}, {"mp_degree": 2, "pp_degree": 2}):
        got = train(tmp_path, configs, 4, "--dtype", "float32",
                    name="_".join(f"{k}{v}" for k, v in configs.items()))
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-4,
                                       err_msg=f"{configs}: {name}")


@pytest.mark.parametrize("configs,nproc", [({"mp_degree": 2}, 2),
                                           ({"dp_degree": 2, "mp_degree": 2}, 4)],
                         ids=["mp2", "dp2xmp2"])
def test_to_static_trains_like_one_process(tmp_path, one_process, configs, nproc):
    """The forward as a program (skiff.jit.to_static): the tensor-parallel communication
    is ops with their gradients, so the program trains as the eager model does."""
    got = train(tmp_path, configs, nproc, "--to-static")
    for name in one_process:
        np.testing.assert_allclose(got[name], one_process[name], rtol=0, atol=1e-9,
                                   err_msg=name)
