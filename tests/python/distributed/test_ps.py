"""The parameter server from Python: 2 servers (python -m skiff.distributed.ps.server) and 2
trainer processes on 127.0.0.1 train a CTR model (workers/ps_ctr.py). In sync mode they
end with the parameters one process gets training on the union batches (within float32
rounding of the same steps on any CPU, as float32_runs derives it); tables saved through
the client and loaded by a fresh pair of servers, and a server killed and restarted, end
identically to the undisturbed job; async mode gets about the same loss and AUC; bad ids, a
table of another dim and an unreachable server fail clearly."""
import os
import socket
import time
from pathlib import Path

import numpy as np
import pytest

import ps_jobs
from float32_runs import check_same_steps, max_difference
from jobs import WORKERS, load_worker

import skiff
from skiff import _C
from skiff.distributed import ps


ps_ctr = load_worker("ps_ctr")  # the trainers' model and data

SHARDS, TRAINERS = 2, 2
HALF = ps_ctr.STEPS // 2


class CtrJob(ps_jobs.PsJob):
    """A PsJob whose trainers run workers/ps_trainer.py (the CTR model)."""

    def start_trainers(self, mode, first, last, load_from="-", trainers=TRAINERS, pause=0.0):
        """Starts the trainers over steps [first, last) (each pausing ``pause`` s after a
        step); returns what finish() takes."""
        return super().start_trainers(f"trainer.{first}", trainers, lambda t, out: [
            WORKERS / "ps_trainer.py", ",".join(self.endpoints), t, trainers, mode, first,
            last, load_from, out, pause])

    def train(self, mode, first, last, load_from="-", trainers=TRAINERS, timeout=60):
        """Runs the trainers over steps [first, last); their losses, by trainer."""
        outputs = self.finish(self.start_trainers(mode, first, last, load_from, trainers),
                              timeout)
        return [o["losses"] for o in outputs]

    def connect(self, mode):
        return ps.Connection(self.endpoints, 0, TRAINERS, mode=mode, connect_secs=10.0)


@pytest.fixture
def job_factory(tmp_path):
    jobs = []

    def make(name, **options):
        jobs.append(CtrJob(tmp_path / name, **options))
        return jobs[-1]

    yield make
    for job in jobs:
        job.kill()


def model_on(connection, vocab, m=ps_ctr):
    """A single-process CTR model (of module ``m``) holding the servers' current values:
    the rows of every id of ``vocab`` and the dense tables (as a Trainer names them)."""
    embedding = ps.DistributedEmbedding("emb", m.DIM, init=m.EMBEDDING_INIT, optimizer=m.SGD,
                                        connection=connection)
    ids = vocab.reshape(-1)
    model = m.CTR(m.LocalEmbedding(ids, embedding.pull(ids)))
    dense = list(model.fc1.parameters()) + list(model.fc2.parameters())
    ps.DenseParameters(dense, optimizer=m.SGD, connection=connection).pull()
    return model


def state_of(model, vocab):
    ids = vocab.reshape(-1)
    return {"emb": model.embedding.rows(ids), **{
        name: p.numpy() for name, p in model.named_parameters() if "fc" in name}}


@pytest.fixture(scope="module")
def data():
    return ps_ctr.make_data()


def train_single_process(data, batch, m=ps_ctr, vocab=None):
    """One process on consecutive batches of ``batch`` with SGD lr 0.1, from the initial
    values a fresh single server gives (the CTR model of module ``m``, with the rows of
    ``vocab``, default every id of the data's vocabulary): {"states": {step: state} (at 0,
    half way, and the last two steps), "losses", "eval": (loss, auc)}."""
    _, train_ids, train_labels, eval_ids, eval_labels = data
    vocab = data[0] if vocab is None else vocab
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    try:
        model = model_on(ps.Connection([f"127.0.0.1:{server.port}"], 0, 1), vocab, m)
    finally:
        server.shutdown()
    opt = skiff.optimizer.SGD(learning_rate=m.LR, parameters=model.parameters())
    states, losses = {0: state_of(model, vocab)}, []
    for step in range(len(train_ids) // batch):
        rows = slice(step * batch, (step + 1) * batch)
        loss = m.loss_of(model, train_ids[rows], train_labels[rows])
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if step + 1 in (m.STEPS // 2, m.STEPS - 1, m.STEPS):
            states[step + 1] = state_of(model, vocab)
    return {"states": states, "losses": losses,
            "eval": m.evaluate(model, eval_ids, eval_labels)}


@pytest.fixture(scope="module")
def reference(data):
    """The union batches of 64 (what sync mode computes)."""
    return train_single_process(data, ps_ctr.BATCH)


@pytest.fixture(scope="module")
def sync_run(tmp_path_factory, data):
    """2 servers x 2 trainers in sync mode: steps [0, 100), the tables saved through a
    client, steps [100, 200) by new trainer processes. Returns the state after 200
    steps, the trainers' losses and the saved folder."""
    job = CtrJob(tmp_path_factory.mktemp("ps") / "sync")
    try:
        losses = job.train("sync", 0, HALF)
        connection = job.connect("sync")
        saved = job.dir / "saved"
        saved.mkdir()
        model_on(connection, data[0])  # creates the tables in this client (idempotent)
        connection.save(saved)
        more = job.train("sync", HALF, ps_ctr.STEPS)
        final = state_of(model_on(connection, data[0]), data[0])
        job.stop(connection)
    finally:
        job.kill()
    return {"state": final, "losses": [a + b for a, b in zip(losses, more)], "saved": saved}


def check_equals_reference(state, reference, m, label):
    """``state`` within float32 rounding of the reference run's after m.STEPS steps."""
    states = reference["states"]
    check_same_steps(state, states[m.STEPS], states[m.STEPS - 1],
                     f"{label} vs single process after {m.STEPS} steps")


def test_sync_two_trainers_equal_single_process(sync_run, reference):
    moved = max_difference(reference["states"][ps_ctr.STEPS], reference["states"][0])
    assert moved > 0.1
    check_equals_reference(sync_run["state"], reference, ps_ctr, "sync")
    # Each trainer's loss is the mean over its 32 samples; their mean is the batch's. A
    # loss is a mean of 64 terms near 0.5 (ulp 6e-8): rounding keeps it within a few ulps.
    union_losses = np.mean(sync_run["losses"], axis=0)
    loss_difference = float(np.abs(union_losses - reference["losses"]).max())
    print(f"losses: max |difference| {loss_difference:.3g}")
    assert loss_difference <= 1e-6
    assert reference["eval"][1] > 0.7, reference["eval"]  # the model learns


@pytest.fixture
def w5():
    """ps_ctr as W5 (26 fields of a 1M-id table, rows of 16, MLP 416-256-1, batch 512), here
    and in the trainers this test starts."""
    previous = os.environ.get("SKIFF_PS_CTR_MODEL")
    os.environ["SKIFF_PS_CTR_MODEL"] = "w5"
    try:
        yield load_worker("ps_ctr")
    finally:
        if previous is None:
            del os.environ["SKIFF_PS_CTR_MODEL"]
        else:
            os.environ["SKIFF_PS_CTR_MODEL"] = previous


def test_sync_w5_equals_single_process(w5, job_factory):
    """W5 itself on 2 servers x 2 trainers (256 samples each per step): after 200 sync steps
    the rows of every id the batches touched and the MLP equal one process training on the
    batches of 512 (within float32 rounding)."""
    data = w5.make_data()
    touched = np.unique(np.concatenate([data[1].reshape(-1), data[3].reshape(-1)]))
    reference = train_single_process(data, w5.BATCH, w5, touched)
    job = job_factory("w5")
    job.train("sync", 0, w5.STEPS, timeout=240)
    connection = job.connect("sync")
    state = state_of(model_on(connection, touched, w5), touched)
    job.stop(connection)
    assert max_difference(reference["states"][w5.STEPS], reference["states"][0]) > 0.02
    check_equals_reference(state, reference, w5, f"W5 sync ({len(touched)} rows)")


def test_fresh_servers_load_and_continue_identically(sync_run, reference, job_factory, data):
    job = job_factory("loaded")
    job.train("sync", HALF, ps_ctr.STEPS, load_from=sync_run["saved"])
    connection = job.connect("sync")
    state = state_of(model_on(connection, data[0]), data[0])
    job.stop(connection)
    # The same sums in the same order as the uninterrupted job (two trainers' shares added
    # on the servers, which commutes): equal on any CPU.
    difference = max_difference(state, sync_run["state"])
    print(f"\nloaded and continued vs uninterrupted: max |difference| {difference:.3g}")
    assert difference == 0


def test_async_close_to_single_process(job_factory, reference, data):
    """Async mode applies each trainer's gradient of 32 samples on arrival: about what one
    process gets from the batches of 32 in turn (400 updates, here on slightly stale rows),
    clearly more than from the 200 union batches of 64 that sync mode applies."""
    vocab, _, _, eval_ids, eval_labels = data
    job = job_factory("async")
    job.train("async", 0, ps_ctr.STEPS)
    connection = job.connect("async")
    loss, auc = ps_ctr.evaluate(model_on(connection, vocab), eval_ids, eval_labels)
    for p in job.servers:  # SIGTERM stops a server cleanly
        p.terminate()
        assert p.wait(timeout=15) == 0, job.logs()
    halves = train_single_process(data, ps_ctr.BATCH // TRAINERS)["eval"]
    print(f"\nasync eval: loss {loss:.4f} auc {auc:.4f}; one process, batches of 32: loss "
          f"{halves[0]:.4f} auc {halves[1]:.4f}; batches of 64: loss {reference['eval'][0]:.4f} "
          f"auc {reference['eval'][1]:.4f}")
    assert abs(auc - halves[1]) <= 0.02
    assert abs(loss - halves[0]) <= 0.02
    assert auc > reference["eval"][1] + 0.03


def run_killing_a_server(job, mode, steps=ps_ctr.STEPS, pause=0.01):
    """Trains ``steps`` steps while server 1 is killed with SIGKILL (once every trainer is
    training and the server has a checkpoint) and started again; returns the trainers'
    outputs and checks that every push reached each server exactly once."""
    procs = job.start_trainers(mode, 0, steps, pause=pause)
    deadline = time.monotonic() + 60
    while not all(Path(f"{out}.started").exists() for out, _ in procs):
        assert time.monotonic() < deadline, f"trainers did not start\n{job.logs()}"
        time.sleep(0.05)
    job.wait_for_checkpoint(1)
    job.restart_server(1)
    outputs = job.finish(procs, timeout=120)
    for t, output in enumerate(outputs):
        progress = output["progress"]
        print(f"\ntrainer {t}: " + "; ".join(
            f"server {s}: {p['pushes_sent']} pushes sent, {p['pushes_applied']} applied, "
            f"restored checkpoint {p['restored']}, {p['recoveries']} recoveries"
            for s, p in enumerate(progress)))
        for p in progress:
            assert p["pushes_applied"] == p["pushes_sent"] > 0, (t, progress)
        assert progress[1]["restored"] >= 1 and progress[1]["recoveries"] >= 1, progress
        assert progress[0]["restored"] == 0 and progress[0]["recoveries"] == 0, progress
    return outputs


def test_sync_survives_a_killed_server_exactly(job_factory, sync_run, data, tmp_path):
    """Sync mode: the killed server restarts from its checkpoint, the trainers replay the
    requests after it, and the job ends with exactly the uninterrupted job's parameters."""
    job = job_factory("killed_sync", checkpoints=tmp_path / "ckpt", checkpoint_secs=0.3)
    run_killing_a_server(job, "sync")
    connection = job.connect("sync")
    state = state_of(model_on(connection, data[0]), data[0])
    job.stop(connection)
    difference = max_difference(state, sync_run["state"])
    print(f"sync with a killed server vs undisturbed: max |difference| {difference:.3g}")
    assert difference == 0


def test_async_survives_a_killed_server(job_factory, data, tmp_path):
    """Async mode: every push is applied once despite the kill; the model still learns."""
    vocab, _, _, eval_ids, eval_labels = data
    job = job_factory("killed_async", checkpoints=tmp_path / "ckpt", checkpoint_secs=0.3)
    run_killing_a_server(job, "async")
    connection = job.connect("async")
    loss, auc = ps_ctr.evaluate(model_on(connection, vocab), eval_ids, eval_labels)
    job.stop(connection)
    print(f"async with a killed server: eval loss {loss:.4f} auc {auc:.4f}")
    assert auc > 0.7


def test_a_killed_server_without_checkpoints_ends_the_job_clearly(job_factory):
    job = job_factory("killed_plain")
    procs = job.start_trainers("sync", 0, ps_ctr.STEPS, pause=0.01)
    time.sleep(3)
    job.restart_server(1)
    for _, p in procs:
        assert p.wait(timeout=60) != 0
    log = (job.dir / "trainer.0.0.log").read_text()
    assert f"parameter server 1 ({job.endpoints[1]})" in log, log
    assert "keeps no checkpoints" in log or "no checkpoints" in log, log


def test_save_load_keeps_optimizer_state(tmp_path, data):
    """One trainer, adagrad rows and adam dense tables: after a load on fresh servers the
    next steps give exactly what the uninterrupted servers give."""
    vocab, train_ids, train_labels, _, _ = data

    def train(servers, steps, first, load=None, save=None):
        connection = ps.Connection([f"127.0.0.1:{s.port}" for s in servers], 0, 1, "async")
        embedding = ps.DistributedEmbedding("emb", ps_ctr.DIM, init=ps_ctr.EMBEDDING_INIT,
                                            optimizer={"kind": "adagrad", "lr": 0.05},
                                            connection=connection)
        model = ps_ctr.CTR(embedding)
        trainer = ps.Trainer(model, optimizer={"kind": "adam", "lr": 0.01},
                             connection=connection)
        if load:
            trainer.load(load)
        for step in range(first, first + steps):
            rows = slice(step * ps_ctr.BATCH, (step + 1) * ps_ctr.BATCH)
            ps_ctr.loss_of(model, train_ids[rows], train_labels[rows]).backward()
            trainer.step()
        if save:
            trainer.save(save)
        ids = vocab.reshape(-1)
        return [embedding.pull(ids)] + [p.numpy() for p in model.parameters()]

    def servers():
        return [_C.PsServer(address="127.0.0.1:0", shard=i, shards=SHARDS)
                for i in range(SHARDS)]

    first, second = servers(), servers()
    try:
        saved_at = train(first, 5, 0, save=str(tmp_path))
        uninterrupted = train(first, 5, 5)
        continued = train(second, 5, 5, load=str(tmp_path))
    finally:
        for s in first + second:
            s.shutdown()
    assert any(not np.array_equal(a, b) for a, b in zip(saved_at, uninterrupted))
    for a, b in zip(uninterrupted, continued):
        np.testing.assert_array_equal(a, b)


def test_dense_values_can_start_from_trainer_zeros_model():
    """dense_from="trainer0": trainer 0 assigns its model's values, every trainer meets it
    at the step before the first and pulls them, whatever its own model started with."""
    import threading

    servers = [_C.PsServer(address="127.0.0.1:0", shard=i, shards=2) for i in range(2)]
    endpoints = [f"127.0.0.1:{s.port}" for s in servers]
    started, ended, errors = {}, {}, []

    def trainer(tid):
        try:
            connection = ps.Connection(endpoints, tid, 2, "async")
            skiff.seed(100 + tid)  # each trainer's model starts elsewhere
            model = skiff.nn.Linear(4, 3)
            started[tid] = [p.numpy().copy() for p in model.parameters()]
            ps.Trainer(model, optimizer={"kind": "sgd", "lr": 0.1}, connection=connection,
                       dense_from="trainer0")
            ended[tid] = [p.numpy().copy() for p in model.parameters()]
        except Exception as e:  # (reported below)
            errors.append(e)

    threads = [threading.Thread(target=trainer, args=(t,)) for t in (1, 0)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        with pytest.raises(ValueError, match="dense_from"):
            ps.Trainer(skiff.nn.Linear(2, 2), name="other", dense_from="mine",
                       connection=ps.Connection(endpoints, 0, 2, "async"))
    finally:
        for s in servers:
            s.shutdown()
    assert not errors, errors
    assert any(not np.array_equal(a, b) for a, b in zip(started[0], started[1]))
    for tid in (0, 1):
        for got, want in zip(ended[tid], started[0]):
            np.testing.assert_array_equal(got, want)


def test_bad_inputs_fail_clearly():
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    try:
        connection = ps.Connection([f"127.0.0.1:{server.port}"], 0, 1, "async")
        embedding = ps.DistributedEmbedding("clicks", 8, connection=connection)
        with pytest.raises(ValueError, match=f"DistributedEmbedding 'clicks'.*{2**70}"):
            embedding([[1, 2**70]])
        with pytest.raises(ValueError, match=f"DistributedEmbedding 'clicks'.*{2**63 + 5}"):
            embedding(np.array([3, 2**63 + 5], dtype=np.uint64))
        assert embedding(np.array([-2**63, 2**63 - 1])).shape == [2, 8]  # the int64 ends
        with pytest.raises(skiff.Error, match=r"table 'clicks'.*dim 4"):
            ps.DistributedEmbedding("clicks", 4, connection=connection)
    finally:
        server.shutdown()
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(skiff.Error, match=f"cannot reach 127.0.0.1:{port} within 1"):
        ps.init([f"127.0.0.1:{port}"], 0, 1, connect_secs=1.0)
    assert time.monotonic() - start < 5
