"""EDL's experiments in the simulator: the static baseline against its closed form, and
small elastic runs under the autoscaler (demand met, nothing failed, same seed same run)."""
import pytest

from skiff.cloud.simulator import edl
from skiff.cloud.simulator.command import simulate_edl
from skiff.cloud.simulator.engine import Simulation
from skiff.cloud.simulator.policies import policy_for
from skiff.cloud.simulator.report import summarize


def run_case(case, policy, seed=0, **size):
    nodes, jobs, services, horizon = case(policy != "static", seed=seed, **size)
    return summarize(Simulation(nodes, jobs, services, policy=policy_for(policy, 5.0),
                                horizon=horizon).run())


def test_static_training_case_pending_matches_its_closed_form():
    # 4 jobs of 60 16-core trainers fit in 133 x 32 cores; jobs 5..20 (submitted at
    # 40..190 s) never start in the 480 s window: (16 x 480 - 10 x (4 + ... + 19)) / 20.
    report, _ = simulate_edl("static", "training")
    assert report["pending_mean"] == pytest.approx((16 * 480 - 10 * sum(range(4, 20))) / 20)
    assert report["never_started"] == 16 and report["failed"] == 0


def test_static_nginx_case_utilisation():
    # 6 jobs x 15 trainers x 16 cores + 5-core pods; off-peak 100 pods.
    report, _ = simulate_edl("static", "nginx")
    assert report["utilisation"]["cpu_off_peak"] == pytest.approx((1440 + 500) / 4256, abs=1e-3)


@pytest.mark.parametrize("policy", ["edl", "skiff"])
def test_elastic_jobs_start_sooner_than_static_ones(policy):
    size = {"nodes": 40, "jobs": 6}
    static = run_case(edl.training_case, "static", **size)
    elastic = run_case(edl.training_case, policy, **size)
    assert elastic["failed"] == 0
    assert elastic["pending_mean"] < static["pending_mean"]
    assert elastic["utilisation"]["cpu"] >= static["utilisation"]["cpu"]


def test_skiff_policy_meets_the_services_demand():
    report = run_case(edl.nginx_case, "skiff", nodes=16, jobs=3, cycles=1, pods=48)
    assert report["unmet_pod_seconds"] == 0.0
    assert report["failed"] == 0
    assert report["scaling_actions"] > 0   # the jobs grew into the room the service left


def test_same_seed_same_report_different_seed_different_jobs():
    size = {"nodes": 16, "jobs": 3, "cycles": 1, "pods": 48}
    first = run_case(edl.nginx_case, "edl", seed=3, **size)
    assert run_case(edl.nginx_case, "edl", seed=3, **size) == first
    _, jobs, _, _ = edl.nginx_case(True, seed=3)
    _, other, _, _ = edl.nginx_case(True, seed=4)
    assert [j.work for j in jobs] != [j.work for j in other]
