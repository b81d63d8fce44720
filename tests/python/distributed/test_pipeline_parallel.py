"""Pipeline parallelism: a tied-embedding model cut into two stages (PipelineLayer) and
trained with the 1F1B and FThenB schedules (PipelineParallel), alone and with data
parallelism, equals one process training on the same batches (float64, 1e-9); the
segmentation and its errors."""
import json

import numpy as np
import pytest

from jobs import describe, load_worker, run_job
from skiff.distributed.fleet import CommunicateTopology
from skiff.distributed.fleet.meta_parallel.pipeline_layer import (LayerDesc, PipelineLayer,
                                                                  segment_bounds)

pp_model = load_worker("pp_model")
AXES = ["data", "pipe", "sharding", "model"]


def test_segments_split_the_layers_by_count_or_by_class():
    descs = pp_model.descs()  # embedding, 4 blocks, tied output
    assert segment_bounds(descs, 2, "uniform") == [0, 3, 6]
    assert segment_bounds(descs, 4, "uniform") == [0, 1, 2, 4, 6]
    assert segment_bounds(descs, 2, "layer:Block") == [0, 3, 6]
    assert segment_bounds(descs, 4, "layer:Block") == [0, 2, 3, 4, 6]


def test_layers_that_do_not_split_are_refused():
    blocks = [LayerDesc(pp_model.Block, 4) for _ in range(5)]
    two_stages = CommunicateTopology(AXES, [1, 2, 1, 1])
    with pytest.raises(ValueError, match="PipelineLayer: 5 layers cannot be split into 2 "
                                         "stages by seg_method 'layer:Block'"):
        PipelineLayer(blocks, topology=two_stages, seg_method="layer:Block")
    with pytest.raises(ValueError, match="1 layers cannot be split into 2 stages"):
        PipelineLayer(blocks[:1], topology=two_stages)
    with pytest.raises(ValueError, match="0 layers cannot be split into 2 stages by "
                                         "seg_method 'layer:Linear'"):
        PipelineLayer(blocks, topology=two_stages, seg_method="layer:Linear")
    with pytest.raises(ValueError, match="num_stages 3 but the topology's pipe axis has 2"):
        PipelineLayer(blocks, num_stages=3, topology=two_stages)


def _run(tmp_path, configs, schedule, nproc, accumulate=4):
    prefix = tmp_path / "pp"
    code, out, logs = run_job(tmp_path, "pp_train.py", nproc, json.dumps(configs), schedule,
                              accumulate, prefix, timeout=180)
    assert code == 0, describe(code, out, logs)
    return [json.loads((tmp_path / f"pp.{r}.json").read_text()) for r in range(nproc)]


def _check_against_one_process(results, dp, accumulate=4):
    losses, params = pp_model.train_reference(dp * accumulate * 2)
    mean_losses = np.mean([r["losses"] for r in results if r["stage"] == 0], axis=0)
    np.testing.assert_allclose(mean_losses, losses, rtol=0, atol=1e-9)
    for r in results:
        stage_losses = [q["losses"] for q in results if q["dp_rank"] == r["dp_rank"]]
        assert all(q == r["losses"] for q in stage_losses)  # every stage returns the loss
        for name, value in r["params"].items():
            np.testing.assert_allclose(value, params[name], rtol=0, atol=1e-9,
                                       err_msg=f"stage {r['stage']}: {name}")
    held = {name for r in results for name in r["params"]}
    assert held == set(params)
    # The tied embedding lives on the first and the last stage (its gradients summed
    # across them), the blocks on one stage each.
    last = max(r["stage"] for r in results)
    assert all(("embed.weight" in r["params"]) == (r["stage"] in (0, last)) for r in results)


def _check_timings_and_errors(results, accumulate=4):
    for r in results:
        t = r["timings"]
        assert t["busy"] > 0 and t["idle"] >= 0
        assert 0 <= t["bubble_fraction"] < 1
        assert t["busy"] == pytest.approx(t["forward"] + t["backward"])
        want = (f"the inputs have {2 * accumulate - 1} samples, not accumulate_steps "
                f"{accumulate} x micro_batch_size 2 = {2 * accumulate}")
        assert want in r["error"], r["error"]


@pytest.mark.parametrize("schedule", ["1F1B", "FThenB"])
def test_two_stages_train_as_one_process(tmp_path, schedule):
    results = _run(tmp_path, {"pp_degree": 2}, schedule, 2)
    assert [r["stage"] for r in results] == [0, 1]
    _check_against_one_process(results, dp=1)
    _check_timings_and_errors(results)


def test_two_stages_by_two_data_parallel_ranks_train_as_one_process(tmp_path):
    results = _run(tmp_path, {"pp_degree": 2, "dp_degree": 2}, "1F1B", 4)
    assert sorted((r["dp_rank"], r["stage"]) for r in results) == [(0, 0), (0, 1), (1, 0),
                                                                    (1, 1)]
    _check_against_one_process(results, dp=2)
    _check_timings_and_errors(results)


@pytest.mark.parametrize("accumulate", [4, 2], ids=["steady", "fewer_micro_batches"])
def test_four_stages_train_as_one_process(tmp_path, accumulate):
    """The middle stages receive and send; with 2 micro-batches the 1F1B warm-up of the
    first stages is cut to the micro-batches there are."""
    results = _run(tmp_path, {"pp_degree": 4}, "1F1B", 4, accumulate)
    assert [r["stage"] for r in results] == [0, 1, 2, 3]
    _check_against_one_process(results, dp=1, accumulate=accumulate)
    _check_timings_and_errors(results, accumulate)
