"""The skiff policy's least-attained-service queues (``Config.thresholds``): a job in an
earlier queue takes spare workers from one of its priority in a later queue, and with
``Config.suspend`` a queued job starts by suspending whole jobs of later queues; without
thresholds, attained service changes nothing. Each expectation worked out by hand."""
import dataclasses
import random

from test_autoscaler_properties import random_state, shuffled

from skiff.cloud.autoscaler import Action, Config, plan
from skiff.cloud.autoscaler.throughput import queue

QUEUES = Config(policy="skiff", cooldown=0.0, thresholds=(3600.0,))
SUSPEND = dataclasses.replace(QUEUES, suspend=True)


def test_queue_counts_the_thresholds_passed(job):
    config = Config(thresholds=(3600.0, 36000.0))
    assert [queue(job("A", 1, 2, attained=a), config) for a in (0, 3599, 3600, 4e4)] == \
        [0, 0, 1, 2]
    assert queue(job("A", 1, 2, attained=4e4)) == 0   # no thresholds: one queue


def test_an_earlier_queue_takes_spare_workers_from_a_later_one(cluster, job):
    state = cluster({"n1": 4}, [job("old", 1, 4, {"n1": 3}, attained=5000.0),
                                job("new", 1, 4, {"n1": 1})])
    grow = Action("new", 1, "n1", reason="grow: marginal throughput 1.00")
    take = Action("old", -1, "n1", reason="reclaim for job new")
    actions = plan(state, QUEUES)
    assert actions == [take, grow, take, grow]   # "old" is down to its minimum
    assert plan(state.applied(actions), QUEUES) == []
    assert plan(state, Config(policy="skiff", cooldown=0.0)) == []   # one queue


def test_a_queued_job_suspends_a_whole_job_of_a_later_queue(cluster, job):
    state = cluster({"n1": 4}, [job("long", 4, 8, {"n1": 4}, attained=50000.0),
                                job("short", 2, 2, elastic=False, submitted=5.0)])
    actions = plan(state, SUSPEND)
    assert actions == [
        Action("long", -4, placement={"n1": -4}, reason="suspend for job short (queue 0)"),
        Action("short", 2, placement={"n1": 2}, reason="admit")]
    after = state.applied(actions)
    assert after.job("long").workers == 0 and after.job("long").placement == {}
    assert plan(after, SUSPEND) == []   # "long" waits: it needs 4, and "short" is earlier
    assert plan(state, QUEUES) == []    # without suspend it waits for room


def test_random_states_with_attained_service_settle():
    rng = random.Random(0)
    config = Config(policy="skiff", cooldown=0.0, thresholds=(3600.0, 36000.0), suspend=True)
    for seed in range(300):
        state = random_state(seed)
        state = dataclasses.replace(state, jobs=tuple(
            dataclasses.replace(j, attained=rng.choice([0.0, 5000.0, 50000.0]))
            for j in state.jobs))
        actions = plan(state, config)
        assert plan(shuffled(state, seed), config) == actions, seed
        after = state.applied(actions)
        for j in after.jobs:
            assert j.workers == 0 or j.min_workers <= j.workers <= j.max_workers, seed
        assert all(n.free.cpu >= -1e-9 and n.free.gpu >= 0 for n in after.nodes), seed
        assert plan(after, config) == [], seed
