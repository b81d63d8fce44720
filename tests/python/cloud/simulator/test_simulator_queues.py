"""The engine as a driver of the skiff policy's queues: jobs' attained service in
worker-seconds reaches the policy, and a suspended job ({node: -count}) goes back to the
queue with its progress kept and finishes later."""
import pytest

from skiff.cloud.autoscaler.state import Resources
from skiff.cloud.simulator.engine import Simulation
from skiff.cloud.simulator.policies import policy_for
from skiff.cloud.simulator.report import summarize
from skiff.cloud.simulator.workload import JobSpec, NodeSpec, linear_rate

WORKER = Resources(cpu=1)


def test_attained_service_is_workers_times_seconds():
    seen = []

    def policy(state):
        seen.append({j.name: j.attained for j in state.jobs})
        return policy_for("skiff", 10.0)(state)

    job = JobSpec("a", 0.0, 100.0, 2, 2, WORKER, linear_rate(1.0), elastic=False)
    Simulation([NodeSpec("n", Resources(cpu=2))], [job], policy=policy, interval=10.0,
               reform=0.0).run()
    assert seen[:3] == [{"a": 0.0}, {"a": 0.0}, {"a": 20.0}]   # 2 workers for 10 s


def test_a_short_job_suspends_a_long_one_and_both_finish():
    # "long" (4 workers, 1 unit/s each) has 800 units; after 100 s it has 400 worker-s,
    # past the 300 threshold; "short" arrives at 100 s needing all 4 workers for 40 units;
    # "long" resumes at 110 s with its 400 units left.
    jobs = [JobSpec("long", 0.0, 800.0, 4, 4, WORKER, linear_rate(1.0)),
            JobSpec("short", 100.0, 40.0, 4, 4, WORKER, linear_rate(1.0))]
    policy = policy_for("skiff", 10.0, thresholds=(300.0,), suspend=True)
    run = Simulation([NodeSpec("n", Resources(cpu=4))], jobs, policy=policy, interval=10.0,
                     reform=0.0).run()
    report = summarize(run)
    assert report["finished"] == 2 and report["preemptions"] == 1
    assert report["completion"]["short"] == pytest.approx(110.0)
    assert report["completion"]["long"] == pytest.approx(210.0)
