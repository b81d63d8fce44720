"""Pipeline parallelism: a tied-embedding model cut into two stages (PipelineLayer) and
trained with the 1F1B and FThenB schedules (PipelineParallel), alone and with data
parallelism, equals one process training on the same batches (float64, 1e-9); the
segmentation and its errors."""
import json

import numpy as np
import pytest

import skiff

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


def _run(tmp_path, hybrid, schedule="1F1B", accumulate=4, scaler=False, recompute=0):
    nproc = hybrid.get("dp_degree", 1) * hybrid["pp_degree"]
    options = {"hybrid": hybrid, "schedule": schedule, "accumulate": accumulate,
               "scaler": scaler, "recompute_interval": recompute}
    code, out, logs = run_job(tmp_path, "pp_train.py", nproc, json.dumps(options),
                              tmp_path / "pp", timeout=180)
    assert code == 0, describe(code, out, logs)
    return [json.loads((tmp_path / f"pp.{r}.json").read_text()) for r in range(nproc)]


def _check_against_one_process(results, dp, accumulate=4):
    """Losses, every stage's parameters, eval_batch's loss and outputs and the errors of
    the job's ranks against one process training on the data-parallel ranks' batches."""
    per_rank = accumulate * 2
    losses, params, reference = pp_model.train_reference(dp * per_rank)
    mean_losses = np.mean([r["losses"] for r in results if r["stage"] == 0], axis=0)
    np.testing.assert_allclose(mean_losses, losses, rtol=0, atol=1e-9)
    last = max(r["stage"] for r in results)
    tokens, labels = pp_model.batches(dp * per_rank)
    for r in results:
        same_batch = [q for q in results if q["dp_rank"] == r["dp_rank"]]
        assert all(q["losses"] == r["losses"] for q in same_batch)  # every stage has it
        for name, value in r["params"].items():
            np.testing.assert_allclose(value, params[name], rtol=0, atol=1e-9,
                                       err_msg=f"stage {r['stage']}: {name}")
        rows = slice(r["dp_rank"] * per_rank, (r["dp_rank"] + 1) * per_rank)
        logits = reference(skiff.to_tensor(tokens[0, rows]))
        want = float(pp_model.loss_fn(logits, skiff.to_tensor(labels[0, rows])))
        assert r["eval_loss"] == pytest.approx(want, rel=0, abs=1e-9)
        if r["stage"] == last:
            np.testing.assert_allclose(r["outputs"], logits.numpy(), rtol=0, atol=1e-9)
        else:
            assert r["outputs"] is None
        assert (f"the inputs have {per_rank - 1} samples, not accumulate_steps {accumulate} "
                f"x micro_batch_size 2 = {per_rank}") in r["error"], r["error"]
    assert {name for r in results for name in r["params"]} == set(params)
    # The tied embedding lives on the first and the last stage (its gradients summed
    # across them), the blocks on one stage each.
    assert all(("embed.weight" in r["params"]) == (r["stage"] in (0, last)) for r in results)


def _check_timings(results):
    for r in results:
        t = r["timings"]
        assert t["busy"] > 0 and t["idle"] >= 0
        assert 0 <= t["bubble_fraction"] < 1
        assert t["busy"] == pytest.approx(t["forward"] + t["backward"])


@pytest.mark.parametrize("schedule,recompute", [("1F1B", 0), ("FThenB", 0), ("1F1B", 2)],
                         ids=["1F1B", "FThenB", "1F1B_recompute"])
def test_two_stages_train_as_one_process(tmp_path, schedule, recompute):
    results = _run(tmp_path, {"pp_degree": 2}, schedule, recompute=recompute)
    assert [r["stage"] for r in results] == [0, 1]
    _check_against_one_process(results, dp=1)
    _check_timings(results)


@pytest.mark.parametrize("accumulate", [4, 2], ids=["steady", "fewer_micro_batches"])
def test_four_stages_train_as_one_process(tmp_path, accumulate):
    """The middle stages receive and send; with 2 micro-batches the 1F1B warm-up of the
    first stages is cut to the micro-batches there are."""
    results = _run(tmp_path, {"pp_degree": 4}, accumulate=accumulate)
    assert [r["stage"] for r in results] == [0, 1, 2, 3]
    _check_against_one_process(results, dp=1, accumulate=accumulate)
    _check_timings(results)


def test_two_stages_by_two_data_parallel_ranks_train_as_one_process(tmp_path):
    """Each data-parallel rank trains on its half of the batch, through a loss scaler."""
    results = _run(tmp_path, {"pp_degree": 2, "dp_degree": 2}, scaler=True)
    assert sorted((r["dp_rank"], r["stage"]) for r in results) == [(0, 0), (0, 1), (1, 0),
                                                                    (1, 1)]
    _check_against_one_process(results, dp=2)
    _check_timings(results)


def test_one_stage_builds_the_whole_model_as_one_process_does():
    previous = skiff.get_default_dtype()
    skiff.set_default_dtype("float64")
    try:
        skiff.seed(pp_model.SEED)
        layer = PipelineLayer(pp_model.descs(), num_stages=1, loss_fn=pp_model.loss_fn)
        skiff.seed(pp_model.SEED)
        reference = pp_model.Reference()
    finally:
        skiff.set_default_dtype(previous)
    want = dict(reference.named_parameters())
    got = {pp_model.reference_name(n): p for n, p in layer.named_parameters()}
    assert set(got) == set(want)
    for name, p in got.items():
        np.testing.assert_array_equal(p.numpy(), want[name].numpy(), err_msg=name)
    tokens, _ = pp_model.batches(4)
    np.testing.assert_allclose(layer(skiff.to_tensor(tokens[0])).numpy(),
                               reference(skiff.to_tensor(tokens[0])).numpy(), rtol=0,
                               atol=1e-12)


class _NoisyBlock(pp_model.Block):
    """A block with dropout: recomputing it must draw the same mask."""
    calls = 0

    def forward(self, x):
        _NoisyBlock.calls += 1
        return skiff.nn.functional.dropout(super().forward(x), p=0.3)


@pytest.mark.parametrize("interval", [1, 2, 3])
def test_recomputed_segments_give_the_gradients_of_the_plain_forward(interval):
    descs = [LayerDesc(pp_model.Block, 6), LayerDesc(_NoisyBlock, 6),
             LayerDesc(pp_model.Block, 6), LayerDesc(_NoisyBlock, 6)]
    x = np.random.default_rng(3).standard_normal([5, 6]).astype("float32")
    grads, calls = [], []
    for k in (0, interval):
        skiff.seed(9)
        layer = PipelineLayer(descs, num_stages=1, recompute_interval=k)
        inputs = skiff.to_tensor(x, stop_gradient=False)
        _NoisyBlock.calls = 0
        (layer(inputs) ** 2).sum().backward()
        calls.append(_NoisyBlock.calls)
        grads.append([inputs.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()])
    assert calls == [2, 4]  # the recomputed blocks ran again in the backward
    for plain, recomputed in zip(*grads):
        np.testing.assert_array_equal(recomputed, plain)
