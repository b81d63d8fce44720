"""Pollux's workloads in the simulator: the throughput model read from the measurements,
a job's work from its validation curve, and short runs under Tiresias and the autoscaler."""
import pytest

from skiff.cloud.simulator import pollux
from skiff.cloud.simulator.command import simulate_pollux


def test_step_times_come_from_the_measurements(pollux_data):
    app = pollux.application(pollux_data, "cifar10")
    assert app.step_time([1], 32) == pytest.approx(0.0427886962890625)    # placement "1"
    assert app.step_time([4, 4], 32) == pytest.approx(0.18453335762023926)  # "44"
    assert app.step_time([4] * 4, 32) == pytest.approx(0.15208077430725098)  # "4444"
    # 8 nodes x 2 GPUs: the scalability table's (8 nodes, 16 replicas) row
    assert app.step_time([2] * 8, 32) == pytest.approx(0.19060187339782714)
    assert app.iterations(2048) == 3178   # the curve's last iteration at batch 2048


def test_jobs_keep_their_batch_and_the_owners_replicas_under_tiresias(pollux_data):
    _, jobs = pollux.workload(pollux_data, "1.0", 1, elastic=False, limit=5)
    assert [j.name for j in jobs] == ["cifar10-0", "deepspeech2-1", "ncf-2", "deepspeech2-3",
                                      jobs[4].name]
    assert (jobs[0].min_workers, jobs[0].max_workers) == (6, 6)
    # 6 replicas of a 2048 batch: 341.3 samples each, between the measured 257 and 363.
    assert jobs[0].rate(6, {"a": 4, "b": 2}) == pytest.approx(
        1 / pollux.application(pollux_data, "cifar10").step_time([2, 4], 2048 / 6))


@pytest.mark.parametrize("policy", ["tiresias", "edl", "skiff"])
def test_a_short_workload_finishes(policy, pollux_data):
    report, run = simulate_pollux(policy, pollux_data, "1.0", 1, limit=12)
    assert report["failed"] == 0 and report["finished"] == 12
    assert report["jct_mean"] > 0
    assert simulate_pollux(policy, pollux_data, "1.0", 1, limit=12)[0] == report
