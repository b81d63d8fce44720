"""Tensor (model) parallelism in eager mode: the model-parallel ops and their gradients,
the parallel layers trained in jobs of mp2 and dp2 x mp2 against one process training
the plain layers on the same global batches, the rng tracker, and the errors."""
import json

import numpy as np
import pytest

import skiff
from jobs import describe, load_worker, run_job
from skiff import nn
from skiff.distributed import fleet
from skiff.distributed.collective import Group
from skiff.distributed.fleet.meta_parallel import mp_ops
from skiff.distributed.fleet.meta_parallel.mp_layers import (ColumnParallelLinear,
                                                             ParallelCrossEntropy,
                                                             RowParallelLinear,
                                                             VocabParallelEmbedding)
from skiff.distributed.fleet.meta_parallel.random import (RNGStatesTracker,
                                                          get_rng_state_tracker,
                                                          model_parallel_random_seed)

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


@pytest.fixture(scope="module")
def mp2_ops(tmp_path_factory):
    """Each rank's results of workers/tp_ops.py in an mp2 job."""
    tmp_path = tmp_path_factory.mktemp("mp2_ops")
    rc, out, logs = run_job(tmp_path, "tp_ops.py", 2, tmp_path / "ops")
    assert rc == 0, describe(rc, out, logs)
    return [np.load(tmp_path / f"ops.{rank}.npz") for rank in range(2)]


def array(seed, *shape):
    return np.random.RandomState(seed).rand(*shape)


def test_mp_ops_forward_and_gradient(mp2_ops):
    for r, got in enumerate(mp2_ops):
        cols = slice(r * 3, (r + 1) * 3)
        close = dict(rtol=0, atol=1e-12)
        # identity: the gradient sums every rank's
        np.testing.assert_allclose(got["identity.y"], array(1, 4, 6), **close)
        np.testing.assert_allclose(got["identity.grad"], array(10, 4, 6) + array(11, 4, 6),
                                   **close)
        # all-reduce: the sum forward, the gradient passes through
        np.testing.assert_allclose(got["allreduce.y"], array(20, 4, 6) + array(21, 4, 6),
                                   **close)
        np.testing.assert_allclose(got["allreduce.grad"], array(30 + r, 4, 6), **close)
        # split: this rank's columns, the gradient gathered from every rank
        np.testing.assert_allclose(got["split.y"], array(1, 4, 6)[:, cols], **close)
        np.testing.assert_allclose(got["split.grad"],
                                   np.concatenate([array(10, 4, 3), array(11, 4, 3)], -1),
                                   **close)
        # concat: every rank's columns, the gradient this rank's slice
        np.testing.assert_allclose(got["concat.y"],
                                   np.concatenate([array(20, 4, 3), array(21, 4, 3)], -1),
                                   **close)
        np.testing.assert_allclose(got["concat.grad"], array(1, 4, 6)[:, cols], **close)


def test_parallel_cross_entropy_equals_one_process(mp2_ops, float64):
    logits = skiff.to_tensor(array(40, 5, 8), stop_gradient=False)
    label = skiff.to_tensor(np.array([[0], [3], [4], [7], [-100]]))
    loss = skiff.nn.functional.cross_entropy(logits, label, reduction="none")
    (loss * skiff.to_tensor(array(41, 5, 1))).sum().backward()
    assert loss.numpy()[4, 0] == 0.0  # ignore_index
    for r, got in enumerate(mp2_ops):
        np.testing.assert_allclose(got["ce.loss"], loss.numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["ce.grad"], logits.grad.numpy()[:, r * 4:(r + 1) * 4],
                                   rtol=0, atol=1e-12)


def test_dropout_differs_across_mp_ranks_only_inside_the_tracker(mp2_ops, float64):
    first, second = mp2_ops
    np.testing.assert_array_equal(first["dropout.before"], second["dropout.before"])
    assert not np.array_equal(first["dropout.inside"], second["dropout.inside"])
    np.testing.assert_array_equal(first["dropout.after"], second["dropout.after"])
    np.testing.assert_array_equal(first["rand.unseeded"], second["rand.unseeded"])
    # outside, the draws are those of a process seeded alike: the block took none of them
    skiff.seed(7)
    ones = skiff.ones([64])
    before = skiff.nn.functional.dropout(ones, 0.5).numpy()
    after = skiff.nn.functional.dropout(ones, 0.5).numpy()
    np.testing.assert_array_equal(first["dropout.before"], before)
    np.testing.assert_array_equal(first["dropout.after"], after)


def test_degree_one_is_the_plain_model(float64):
    one = Group(0, [0], 0)
    x = skiff.to_tensor(array(1, 3, 4))
    for op in (mp_ops._c_identity, mp_ops._mp_allreduce, mp_ops._c_split, mp_ops._c_concat):
        assert op(x, group=one) is x
    skiff.seed(5)
    parallel = [ColumnParallelLinear(4, 6, has_bias=True, mp_group=one),
                RowParallelLinear(6, 4, mp_group=one),
                VocabParallelEmbedding(10, 4, mp_group=one)]
    skiff.seed(5)
    plain = [nn.Linear(4, 6), nn.Linear(6, 4), nn.Embedding(10, 4)]
    for p, q in zip(parallel, plain):
        assert not p.weight.is_distributed
        np.testing.assert_array_equal(p.weight.numpy(), q.weight.numpy())
    np.testing.assert_array_equal(parallel[1](parallel[0](x)).numpy(),
                                  plain[1](plain[0](x)).numpy())
    ids = skiff.to_tensor(np.array([[1, 9], [0, 3]]))
    np.testing.assert_array_equal(parallel[2](ids).numpy(), plain[2](ids).numpy())


def test_mistakes_are_named(monkeypatch, float64):
    two = Group(0, [0, 1], 0)  # nothing is communicated before the checks fail
    with pytest.raises(ValueError, match="ColumnParallelLinear: out_features 5 is not "
                                         "divisible by the model-parallel degree 2"):
        ColumnParallelLinear(4, 5, mp_group=two)
    with pytest.raises(ValueError, match="RowParallelLinear: in_features 3 is not divisible"):
        RowParallelLinear(3, 4, mp_group=two)
    with pytest.raises(ValueError, match="VocabParallelEmbedding: num_embeddings 7 is not"):
        VocabParallelEmbedding(7, 4, mp_group=two)
    with pytest.raises(ValueError, match="_c_split: the last dim 5 is not divisible"):
        mp_ops._c_split(skiff.to_tensor(array(1, 2, 5)), group=two)
    with pytest.raises(ValueError, match="label shape \\[3\\] does not match logits shape"):
        ParallelCrossEntropy(mp_group=two)(skiff.to_tensor(array(1, 2, 4)),
                                           skiff.to_tensor(np.array([0, 1, 2])))
    monkeypatch.setattr(fleet._Fleet, "hcg", None)
    with pytest.raises(RuntimeError, match="ColumnParallelLinear: no model-parallel group; "
                                           "call fleet.init"):
        ColumnParallelLinear(4, 6)
    with pytest.raises(RuntimeError, match="_c_identity: no model-parallel group"):
        mp_ops._c_identity(skiff.to_tensor(array(1, 2, 4)))
    with pytest.raises(RuntimeError, match="model_parallel_random_seed: call fleet.init"):
        model_parallel_random_seed(1)


def test_rng_states_tracker():
    tracker = RNGStatesTracker()
    tracker.add("a", 11)
    with pytest.raises(ValueError, match="seed 11 is already used"):
        tracker.add("b", 11)
    with pytest.raises(ValueError, match="state 'a' already exists"):
        tracker.add("a", 12)
    with pytest.raises(ValueError, match="no state 'model_parallel_rng'"):
        with tracker.rng_state():
            pass
    skiff.seed(3)
    saved = tracker.get_states_tracker()
    with tracker.rng_state("a"):
        first = skiff.rand([4]).numpy()
    outside = skiff.rand([4]).numpy()
    skiff.seed(3)
    np.testing.assert_array_equal(outside, skiff.rand([4]).numpy())  # global untouched
    with tracker.rng_state("a"):
        assert not np.array_equal(first, skiff.rand([4]).numpy())  # "a" went on
    tracker.set_states_tracker(saved)
    with tracker.rng_state("a"):
        np.testing.assert_array_equal(first, skiff.rand([4]).numpy())
    skiff.seed(11)
    np.testing.assert_array_equal(first, skiff.rand([4]).numpy())  # "a" began at seed 11
    assert get_rng_state_tracker() is get_rng_state_tracker()
