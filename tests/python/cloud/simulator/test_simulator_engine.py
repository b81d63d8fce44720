"""The simulator's engine on small hand-computed cases, with a first-come policy written
here (admit at the minimum, then grow while there is room)."""
import pytest

from skiff.cloud.autoscaler.state import Action, Resources
from skiff.cloud.simulator.engine import Simulation, SimulationError
from skiff.cloud.simulator.report import summarize
from skiff.cloud.simulator.workload import JobSpec, NodeSpec, ServiceSpec, linear_rate


def first_come(state):
    """Admits pending jobs at their minimum on the first nodes with room, then grows the
    running elastic jobs one worker a node while a node has room."""
    free = {n.name: n.free for n in state.nodes}
    actions = []
    for job in state.jobs:
        if job.workers:
            continue
        place, left = {}, job.min_workers
        for name, room in free.items():
            take = min(left, job.worker.count_in(room))
            if take:
                place[name], left = take, left - take
        if left == 0:
            for name, count in place.items():
                free[name] = free[name] - job.worker.times(count)
            actions.append(Action(job.name, job.min_workers, placement=place))
    for job in state.jobs:
        if job.workers and job.elastic:
            grown = job.workers + sum(a.delta for a in actions if a.job == job.name)
            for name in free:
                while grown < job.max_workers and job.worker.fits_in(free[name]):
                    free[name] = free[name] - job.worker
                    actions.append(Action(job.name, 1, node=name))
                    grown += 1
    return actions


def two_nodes():
    return [NodeSpec(f"n{i}", Resources(cpu=4, memory=8)) for i in range(2)]


def test_two_jobs_finish_at_hand_computed_times():
    w = Resources(cpu=2, memory=1)
    jobs = [JobSpec("a", 0.0, 100.0, 2, 2, w, linear_rate(1.0), elastic=False),
            JobSpec("b", 10.0, 120.0, 2, 4, w, linear_rate(1.0))]
    run = Simulation(two_nodes(), jobs, policy=first_come, interval=5.0, reform=1.0).run()
    # a: admitted at 0 with 2 workers, re-form 1 s, 100 units at 2/s -> 51.
    # b: arrives at 10 (a holds 2 of the 4 slots): admitted at 10 with 2, runs from 11;
    #    at 51 (a's finish is a job event: the policy runs) it grows to 4: 40 s x 2 = 80
    #    done, re-form to 52, the 40 left at 4/s -> 62.
    assert run.jobs["a"].finished == pytest.approx(51.0, abs=1e-9)
    assert run.jobs["b"].finished == pytest.approx(62.0, abs=1e-9)
    report = summarize(run)
    assert report["jct_mean"] == pytest.approx((51.0 + 52.0) / 2)
    assert report["pending_mean"] == 0.0
    assert report["scaling_actions"] == 2 and report["admissions"] == 2
    assert report["failed"] == 0


def test_a_jobs_startup_delays_its_first_step_but_not_its_workers():
    """A job with 6 s of startup: admitted at 0 holding its 2 workers, first step at 6."""
    w = Resources(cpu=2, memory=1)
    jobs = [JobSpec("a", 0.0, 100.0, 2, 2, w, linear_rate(1.0), elastic=False, startup=6.0)]
    run = Simulation(two_nodes(), jobs, policy=first_come, interval=5.0, reform=1.0).run()
    assert run.jobs["a"].finished == pytest.approx(56.0, abs=1e-9)  # 6 + 100 / 2
    assert summarize(run)["utilisation"]["cpu"] == pytest.approx(0.5)  # 4 of 8 throughout


def test_pending_job_waits_and_utilisation_is_exact():
    w = Resources(cpu=4, memory=1)
    jobs = [JobSpec("a", 0.0, 30.0, 2, 2, w, linear_rate(1.0), elastic=False),
            JobSpec("b", 0.0, 30.0, 2, 2, w, linear_rate(1.0), elastic=False)]
    run = Simulation(two_nodes(), jobs, policy=first_come, interval=5.0, reform=0.0).run()
    assert run.jobs["a"].finished == pytest.approx(15.0)
    assert run.jobs["b"].started == pytest.approx(15.0)   # admitted when a finishes
    assert run.jobs["b"].finished == pytest.approx(30.0)
    report = summarize(run)
    assert report["pending_mean"] == pytest.approx(7.5)
    assert report["utilisation"]["cpu"] == pytest.approx(1.0)


def test_same_inputs_same_report():
    def simulate():
        nodes = [NodeSpec(f"n{i}", Resources(cpu=8, memory=8)) for i in range(6)]
        w = Resources(cpu=2, memory=1)
        jobs = [JobSpec(f"j{i}", 7.0 * i, 200.0 + 37 * i, 1, 8, w, linear_rate(1.5))
                for i in range(12)]
        svc = ServiceSpec("web", Resources(cpu=1), [0, 40, 80], [6, 12, 3])
        return summarize(Simulation(nodes, jobs, [svc], policy=first_come).run())
    assert simulate() == simulate()


def test_a_bad_action_raises():
    w = Resources(cpu=2, memory=1)
    jobs = [JobSpec("a", 0.0, 100.0, 1, 1, w, linear_rate(1.0), elastic=False)]

    def greedy(state):
        return [Action("a", 1, placement={"n0": 1})] if not state.jobs[0].workers else [
            Action("a", 1, node="n1")]   # grows a static job
    with pytest.raises(SimulationError, match="cannot grow"):
        Simulation(two_nodes(), jobs, policy=greedy).run()


def test_service_pods_are_placed_and_unmet_demand_counted():
    # 8 CPUs in all, a static job holds 6: a service wanting 4 one-CPU pods gets 2.
    w = Resources(cpu=3, memory=1)
    jobs = [JobSpec("a", 0.0, 40.0, 2, 2, w, linear_rate(1.0), elastic=False)]
    svc = ServiceSpec("web", Resources(cpu=1), [0.0, 10.0], [0, 4])
    run = Simulation(two_nodes(), jobs, [svc], policy=first_come, reform=0.0).run()
    assert run.jobs["a"].finished == pytest.approx(20.0)
    assert run.unmet_pod_seconds == pytest.approx(2 * 10.0)   # 2 pods missing, 10..20


def test_a_job_too_big_for_the_cluster_fails():
    w = Resources(cpu=4, memory=1)
    jobs = [JobSpec("big", 0.0, 10.0, 3, 3, w, linear_rate(1.0), elastic=False)]
    report = summarize(Simulation(two_nodes(), jobs, policy=first_come).run())
    assert report["failed"] == 1
