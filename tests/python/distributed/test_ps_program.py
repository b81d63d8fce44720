"""Static programs on the parameter servers (skiff.distributed.ps.program): 2 servers
(python -m skiff.distributed.ps.server) and 2 trainer processes on 127.0.0.1 train the
static CTR model (workers/ps_static.py) split by DistributedMinimizer. In sync mode they end
with the parameters one process gets training the unsplit program on the union batches
(within float32 rounding of the same steps on any CPU, as float32_runs derives it); async
mode trains; the split program keeps no optimizer op of a distributed
parameter, and programs it cannot split are refused naming the op and the variable."""
import sys
import zlib

import numpy as np
import pytest

import ps_jobs
from float32_runs import check_same_steps
from jobs import WORKERS

sys.path.insert(0, str(WORKERS))
import ps_ctr  # noqa: E402  (the data and constants)
import ps_static  # noqa: E402  (the static model)

import skiff  # noqa: E402
from skiff import _C, static  # noqa: E402
from skiff.distributed import ps  # noqa: E402
from skiff.distributed.ps import program as ps_program  # noqa: E402

TRAINERS = 2


@pytest.fixture
def static_mode():
    skiff.enable_static()
    try:
        with static.scope_guard(static.Scope()):
            yield
    finally:
        skiff.disable_static()


class Job(ps_jobs.PsJob):
    """A PsJob whose trainers run workers/ps_static_trainer.py (the split static model)."""

    def train(self, mode, steps, timeout=180):
        """Runs the trainers for ``steps`` steps; their JSON results, by trainer."""
        return self.finish(self.start_trainers("trainer", TRAINERS, lambda t, out: [
            WORKERS / "ps_static_trainer.py", ",".join(self.endpoints), t, TRAINERS, mode,
            steps, out]), timeout)


@pytest.fixture
def job(tmp_path):
    made = []

    def make(name):
        made.append(Job(tmp_path / name))
        return made[-1]

    yield make
    for j in made:
        j.kill()


def server_rows(ids):
    """The rows a fresh server gives ``ids`` of the split program's sparse table."""
    minimizer = ps_program.DistributedMinimizer(ps_static.sgd())
    ps_static.build(minimizer=minimizer)
    table, = [t for t in minimizer.tables if t.sparse]
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    try:
        connection = ps.Connection([f"127.0.0.1:{server.port}"], 0, 1, "async")
        table.create(connection)
        return connection.client.pull_sparse(table.name, np.ascontiguousarray(ids), table.dim)
    finally:
        server.shutdown()


def train_reference(initial, steps):
    """One process training the unsplit program on the union batches of 64 (ids as rows of
    the sorted vocabulary, rows and dense values as the split job starts): its losses, the
    rows of the vocabulary's ids at the start, and its state ({"rows": the vocabulary's
    rows, and the dense values by name}) at the end ("final") and one step before."""
    vocab, train_ids, train_labels, _, _ = ps_ctr.make_data()
    known = np.sort(vocab.reshape(-1))
    rows = server_rows(known)
    main, startup, loss = ps_static.build(optimizer=ps_static.sgd(), table_rows=len(known))
    exe, scope = static.Executor(), static.global_scope()
    exe.run(startup)
    scope.set(ps_static.TABLE, rows)
    for name, value in initial.items():
        scope.set(name, np.asarray(value, np.float32))
    where = np.searchsorted(known, vocab.reshape(-1))  # the vocabulary's ids in its order

    def state():
        return {"rows": scope.get(ps_static.TABLE).numpy()[where],
                **{name: scope.get(name).numpy() for name in ps_static.DENSE}}

    losses = []
    for step in range(steps):
        if step == steps - 1:
            before_last = state()
        batch = slice(step * ps_ctr.BATCH, (step + 1) * ps_ctr.BATCH)
        value, = exe.run(main, feed={"ids": np.searchsorted(known, train_ids[batch]),
                                     "label": train_labels[batch]}, fetch_list=[loss])
        losses.append(float(value))
    return {"losses": np.array(losses), "start": rows[where], "final": state(),
            "before_last": before_last}


def check_sync_result(results, label):
    """The trainers' outputs (by trainer, in order) against one process training the
    unsplit program on the union batches from trainer 0's initial values: the same rows and
    dense values (float32_runs) and losses; both trainers pulled the same dense values."""
    for r in results:
        assert r["next_step"] == ps_ctr.STEPS
    for name in ps_static.DENSE:
        assert results[0]["final"][name] == results[1]["final"][name]
    reference = train_reference(results[0]["initial"], ps_ctr.STEPS)
    got = {"rows": np.array(results[0]["rows"], np.float32), **{
        name: np.array(results[0]["final"][name], np.float32) for name in ps_static.DENSE}}
    assert float(np.abs(reference["final"]["rows"] - reference["start"]).max()) > 0.1
    check_same_steps(got, reference["final"], reference["before_last"],
                     f"{label} vs one process after {ps_ctr.STEPS} steps")
    # A loss is a mean of 64 terms near 0.5 (ulp 6e-8): rounding keeps it within a few ulps.
    union_losses = np.mean([r["losses"] for r in results], axis=0)
    loss_difference = float(np.abs(union_losses - reference["losses"]).max())
    print(f"losses: max |difference| {loss_difference:.3g}")
    assert loss_difference <= 1e-6
    assert reference["losses"][-20:].mean() < reference["losses"][:20].mean() - 0.05


def test_sync_two_trainers_equal_one_process_on_union_batches(job, static_mode):
    check_sync_result(job("sync").train("sync", ps_ctr.STEPS), "static sync")


def test_async_trainers_train(job):
    results = job("async").train("async", ps_ctr.STEPS)
    for r in results:
        losses = np.array(r["losses"])
        print(f"\nstatic async: loss {losses[:40].mean():.4f} -> {losses[-40:].mean():.4f}")
        assert losses[-40:].mean() < losses[:40].mean() - 0.05


def test_split_program_keeps_no_update_of_distributed_parameters(static_mode):
    opt = skiff.optimizer.Adam(learning_rate=0.01, beta1=0.8)
    minimizer = ps_program.DistributedMinimizer(opt, mode="async")
    main, startup, _ = ps_static.build(minimizer=minimizer)
    types = [op.type for op in main.global_block().ops]
    for gone in ("adam", "embedding", "embedding_grad"):
        assert gone not in types
    assert types.count("ps_pull_sparse") == 1 and types.count("ps_push_sparse") == 1
    assert types[-3:] == ["ps_push_dense", "ps_barrier", "ps_pull_dense"]
    assert main.global_block().ops[-2].attr("mode") == "async"
    assert main.global_block().ops[-1].attr("tables") == ps_static.DENSE
    declared = set(main.desc.var_names(0))
    assert ps_static.TABLE not in declared
    assert not [n for n in declared if "moment" in n or "pow_acc" in n or "learning_rate" in n]
    written = {n for op in startup.global_block().ops for n in op.output_arg_names}
    assert ps_static.TABLE not in written and set(ps_static.DENSE) <= written
    assert not [n for n in written if "moment" in n or "pow_acc" in n]
    assert ps_program.pending()

    tables = {t.name: t for t in minimizer.tables}
    assert sorted(tables) == sorted([ps_static.TABLE] + ps_static.DENSE)
    emb = tables[ps_static.TABLE]
    assert emb.sparse and emb.dim == ps_ctr.DIM
    assert emb.init == {"kind": "uniform", "low": -0.1, "high": 0.1,
                        "seed": zlib.crc32(ps_static.TABLE.encode())}
    assert emb.optimizer == {"kind": "adam", "lr": 0.01, "beta1": 0.8, "beta2": 0.999,
                             "epsilon": 1e-8}
    assert not tables["fc1.w_0"].sparse and tables["fc1.w_0"].width == 64 * 32


def test_adagrad_densified_sparse_gradient_is_pushed_as_rows(static_mode):
    opt = skiff.optimizer.Adagrad(learning_rate=0.05, initial_accumulator_value=0.1)
    minimizer = ps_program.DistributedMinimizer(opt)
    main, _, _ = ps_static.build(minimizer=minimizer)
    types = [op.type for op in main.global_block().ops]
    assert "adagrad" not in types and "sum" not in types
    assert types.count("ps_push_sparse") == 1
    table, = [t for t in minimizer.tables if t.sparse]
    assert table.optimizer == {"kind": "adagrad", "lr": 0.05, "epsilon": 1e-6,
                                             "initial_g2sum": 0.1}


def test_ops_fail_clearly_without_init_worker(static_mode):
    main, startup, loss = ps_static.build(minimizer=ps_program.DistributedMinimizer(
        ps_static.sgd()))
    ps_program.stop_worker()
    exe = static.Executor()
    exe.run(startup)
    _, ids, labels, _, _ = ps_ctr.make_data()
    with pytest.raises(skiff.Error, match="ps_pull_sparse: no parameter-server connection; "
                                          "call fleet.init_worker()"):
        exe.run(main, feed={"ids": ids[:4], "label": labels[:4]}, fetch_list=[loss])


def test_refuses_what_it_cannot_split(static_mode):
    def tied_weights():
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            ids = static.data("ids", [-1, 3], "int64")
            rows = static.nn.embedding(ids, size=[100, 8], is_sparse=True, param_attr="tied")
            pooled = rows.sum(axis=1)
            scores = skiff.matmul(pooled, main.global_block().var("tied"), transpose_y=True)
            ps_program.DistributedMinimizer(ps_static.sgd()).minimize(skiff.mean(scores))

    with pytest.raises(skiff.Error, match=r"op 'matmul' \(at .*test_ps_program.py:\d+\) reads "
                                          r"sparse table 'tied'"):
        tied_weights()
    with pytest.raises(skiff.Error, match=r"gradient of sparse table 'emb'.*weight decay"):
        ps_static.build(minimizer=ps_program.DistributedMinimizer(
            skiff.optimizer.SGD(learning_rate=0.1, weight_decay=0.01)))
    schedule = skiff.optimizer.lr.StepDecay(learning_rate=0.1, step_size=10)
    with pytest.raises(ValueError, match="LRScheduler"):
        ps_static.build(minimizer=ps_program.DistributedMinimizer(
            skiff.optimizer.SGD(learning_rate=schedule)))
    with pytest.raises(ValueError, match="SGD, Adam or Adagrad, not Momentum"):
        ps_program.DistributedMinimizer(skiff.optimizer.Momentum(learning_rate=0.1))
    with pytest.raises(ValueError, match="geo mode trains the trainer's copies with SGD"):
        ps_program.DistributedMinimizer(skiff.optimizer.Adam(learning_rate=0.1), k_steps=4)
    with pytest.raises(ValueError, match="geo mode syncs every k_steps steps"):
        ps_program.DistributedMinimizer(ps_static.sgd(), mode="geo")

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ids = static.data("ids", [-1, 3], "int64")
        init = skiff.nn.initializer.Assign(np.ones([10, 4], np.float32))
        rows = static.nn.embedding(ids, size=[10, 4], is_sparse=True,
                                   param_attr=skiff.ParamAttr(name="ones", initializer=init))
        with pytest.raises(ValueError, match="sparse table 'ones' is initialised by op"):
            ps_program.DistributedMinimizer(ps_static.sgd()).minimize(skiff.mean(rows))
