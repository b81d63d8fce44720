"""Bounded tables on the parameter servers: entries admit new ids only when seen often
enough (CountFilterEntry, ProbabilityEntry; Paddle's static.nn.sparse_embedding(entry=)),
and fleet.shrink / ps.shrink evict rows left unused. A Paddle-style static script trains
through fleet against a server in this process; the rows it reads and the servers' counts
are checked step by step."""
import time

import numpy as np
import pytest

import skiff
import skiff.nn.functional as F
from skiff import _C, static
from skiff.distributed import CountFilterEntry, ProbabilityEntry, fleet, ps
from skiff.framework.param import ParamAttr
from skiff.nn.initializer import Uniform
from test_ps_program import static_mode  # noqa: F401 (a fixture)

DIM, LR = 4, 0.5


@pytest.fixture
def server():
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    yield f"127.0.0.1:{server.port}"
    server.shutdown()


@pytest.fixture
def static_fleet(server, static_mode):
    """fleet in async parameter-server mode as trainer 0 of 1, in static mode."""
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = True
    fleet.init(fleet.UserDefinedRoleMaker(0, fleet.Role.WORKER, 1, [server]), strategy=strategy)
    try:
        yield
    finally:
        fleet.ps_mode.reset()


def build(entry):
    """A split program whose loss is the sum of the rows of the fed ids (each row's
    gradient is 1 everywhere): its main program, startup program and rows variable."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ids = static.data("ids", [-1], "int64")
        rows = static.nn.sparse_embedding(
            ids, [100, DIM], entry=entry,
            param_attr=ParamAttr(name="emb", initializer=Uniform(-0.1, 0.1)))
        loss = rows.sum()
        fleet.distributed_optimizer(skiff.optimizer.SGD(learning_rate=LR)).minimize(loss)
    return main, startup, rows


def test_count_filter_entry_admits_ids_at_their_nth_touch(static_fleet):
    main, startup, rows = build(CountFilterEntry(3))
    exe = static.Executor()
    exe.run(startup)
    fleet.init_worker()
    connection = ps.connection()
    ids = np.array([7, 11, 7], np.int64)  # a step touches each id twice: pull, push

    def step():
        return exe.run(main, feed={"ids": ids}, fetch_list=[rows])[0]

    assert np.all(step() == 0)  # touches 1 (pull) and 2 (push, dropped)
    (info,) = connection.info()
    assert (info["rows"], info["dropped_unadmitted"]) == (0, 2)
    initial = step()            # touch 3 admits them: the initial rows, then updated
    assert np.all(initial != 0) and np.all(np.abs(initial) <= 0.1)
    np.testing.assert_array_equal(initial[0], initial[2])
    after = step()
    # 7 appears twice in the batch: its gradient is 2 per element.
    np.testing.assert_allclose(after, initial - LR * np.array([[2], [1], [2]]), rtol=1e-6)
    (info,) = connection.info()
    assert (info["rows"], info["dropped_unadmitted"]) == (2, 2)
    assert "CountFilterEntry(3)" == repr(CountFilterEntry(3))


def test_shrink_evicts_rows_left_unused_and_they_start_over(static_fleet):
    main, startup, rows = build(None)
    exe = static.Executor()
    exe.run(startup)
    fleet.init_worker()
    first = exe.run(main, feed={"ids": np.array([1, 2, 3], np.int64)}, fetch_list=[rows])[0]
    time.sleep(0.4)
    exe.run(main, feed={"ids": np.array([3], np.int64)}, fetch_list=[rows])
    assert fleet.shrink() == 0  # the table has no ttl of its own
    with pytest.warns(UserWarning, match="threshold .* not used"):
        assert fleet.shrink(threshold=0.5, untouched_secs=0.3) == 2  # ids 1 and 2
    (info,) = ps.connection().info()
    assert (info["rows"], info["evicted"]) == (1, 2)
    # An evicted id starts over from its initial row; 3 kept its two updates.
    again = exe.run(main, feed={"ids": np.array([1, 2, 3], np.int64)}, fetch_list=[rows])[0]
    np.testing.assert_array_equal(again[:2], first[:2])
    np.testing.assert_allclose(again[2], first[2] - 2 * LR, rtol=1e-6)
    with pytest.raises(ValueError, match="untouched_secs must be positive"):
        fleet.shrink(untouched_secs=0)


def test_probability_entry_admits_the_same_ids_in_every_job(server):
    """Each touch admits an id with the entry's probability, drawn from the table's seed,
    the id and the touch: two jobs admit the same ids, about p of them per touch."""
    connection = ps.Connection([server], 0, 1, "async")
    ids = np.arange(2000, dtype=np.int64)
    admitted = []
    init = {"kind": "uniform", "low": -1, "high": 1, "seed": 3}
    for table in ("a", "b"):
        emb = ps.DistributedEmbedding(table, DIM, init=init, entry=ProbabilityEntry(0.3),
                                      connection=connection)
        admitted.append(np.any(emb.pull(ids) != 0, axis=1))
    assert abs(admitted[0].mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / len(ids))
    np.testing.assert_array_equal(admitted[0], admitted[1])


def test_entry_mistakes_fail_clearly(server):
    with pytest.raises(ValueError, match="count_filter must be an integer >= 0, got -1"):
        CountFilterEntry(-1)
    with pytest.raises(ValueError, match=r"probability must be a number in \(0, 1\], got 0"):
        ProbabilityEntry(0)
    connection = ps.Connection([server], 0, 1, "async")
    with pytest.raises(TypeError, match="entry must be a CountFilterEntry or a "
                                        "ProbabilityEntry, got str.*ShowClickEntry"):
        ps.DistributedEmbedding("e", DIM, entry="count_filter_entry:3", connection=connection)
    ps.DistributedEmbedding("e", DIM, entry=CountFilterEntry(2), connection=connection)
    with pytest.raises(skiff.Error, match="'e'.*admitted after 2 touches"):
        ps.DistributedEmbedding("e", DIM, entry=CountFilterEntry(5), connection=connection)
    skiff.enable_static()
    try:
        ids = static.data("ids", [-1], "int64")
        with pytest.raises(ValueError, match="is_test=True .* not supported"):
            static.nn.sparse_embedding(ids, [10, DIM], is_test=True)
        with pytest.raises(ValueError, match="table_class 'SSDSparseTable'"):
            static.nn.sparse_embedding(ids, [10, DIM], table_class="SSDSparseTable")
    finally:
        skiff.disable_static()
