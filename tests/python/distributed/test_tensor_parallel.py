"""Tensor (model) parallelism in eager mode: the model-parallel ops and their gradients,
the parallel layers trained in jobs of mp2 and dp2 x mp2 against one process training
the plain layers on the same global batches, the rng tracker, and the errors."""
import json

import numpy as np
import pytest

import skiff
from jobs import describe, load_worker, run_job

tp_model = load_worker("tp_model")


@pytest.fixture
def float64():
    previous = skiff.get_default_dtype()
    skiff.set_default_dtype("float64")
    yield
    skiff.set_default_dtype(previous)


def plain_training():
    """Losses and final parameters of the plain TinyLM trained in this process."""
    skiff.seed(tp_model.SEED)
    model = tp_model.TinyLM(parallel=False)
    losses = tp_model.train(model, tp_model.plain_loss, *tp_model.batches())
    return losses, {name: p.numpy() for name, p in model.named_parameters()}


@pytest.mark.parametrize("configs,nproc", [({"mp_degree": 2}, 2),
                                           ({"dp_degree": 2, "mp_degree": 2}, 4)],
                         ids=["mp2", "dp2xmp2"])
def test_parallel_training_equals_one_process(tmp_path, float64, configs, nproc):
    rc, out, logs = run_job(tmp_path, "tp_train.py", nproc, json.dumps(configs),
                            tmp_path / "result")
    assert rc == 0, describe(rc, out, logs)
    losses, params = plain_training()
    dp = configs.get("dp_degree", 1)
    results = [np.load(tmp_path / f"result.{rank}.npz") for rank in range(nproc)]
    split = json.loads(str(results[0]["split"]))
    assert split == {"embedding.weight": 0, "up.weight": 1, "up.bias": 0, "down.weight": 0,
                     "mix_in.weight": 1, "mix_out.weight": 0, "head.weight": 1}
    # the global loss is the mean of the data-parallel ranks' (equal parts of the batch)
    dp_losses = [results[rank]["losses"] for rank in range(0, nproc, nproc // dp)]
    np.testing.assert_allclose(np.mean(dp_losses, axis=0), losses, rtol=0, atol=1e-9)
    assert losses[-1] < losses[0]
    for rank, result in enumerate(results):
        for name, want in params.items():
            np.testing.assert_allclose(result[name], want, rtol=0, atol=1e-9,
                                       err_msg=f"rank {rank}: {name}")
