"""The "skiff" policy on small clusters, each expectation worked out by hand; and the
throughput curve it reads."""
from skiff.cloud.autoscaler import Action, Config, Resources, Service, plan
from skiff.cloud.autoscaler.curve import efficiency, throughput

SKIFF = Config(policy="skiff")


def test_admits_queued_jobs_before_any_running_job_grows(cluster, job):
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 8, {"n1": 1}),
        job("low", 2, 2, elastic=False, submitted=1),
        job("high", 2, 3, priority=2, submitted=2)])
    actions = plan(state, SKIFF)
    assert actions[:2] == [
        Action("high", 2, placement={"n1": 1, "n2": 1}, reason="admit"),  # priority first
        Action("low", 2, placement={"n1": 1, "n2": 1}, reason="admit"),
    ]
    assert all(a.delta == 1 for a in actions[2:])


def test_preempts_spare_workers_of_lower_priority_jobs(cluster, job):
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 8, {"n1": 4, "n2": 4}),
        job("H", 3, 3, elastic=False, priority=5)])
    reason = "preempt for job H (priority 5)"
    assert plan(state, SKIFF) == [
        Action("A", -1, "n1", reason=reason),  # 4 and 4: by name
        Action("A", -1, "n2", reason=reason),
        Action("A", -1, "n1", reason=reason),
        Action("H", 3, placement={"n1": 2, "n2": 1}, reason="admit"),
    ]


def test_never_preempts_higher_priority_or_static_workers(cluster, job):
    state = cluster({"n1": 4, "n2": 4}, [
        job("P", 1, 8, {"n1": 4}, priority=9),
        job("S", 4, 4, {"n2": 4}, elastic=False),
        job("H", 2, 2, priority=5)])
    assert plan(state, SKIFF) == []


def test_a_free_slot_goes_where_it_adds_the_most_throughput(cluster, job):
    # At 2 workers A's third adds (270-190)*2/190 = 0.84 of an average worker, B's adds
    # 1.00; B is not measured past 3 workers, A past 4: neither grows beyond.
    state = cluster({"n1": 16}, [
        job("A", 1, 8, {"n1": 2}, throughput={1: 100, 2: 190, 3: 270, 4: 340}),
        job("B", 1, 8, {"n1": 2}, throughput={1: 10, 2: 20, 3: 30})])
    assert plan(state, SKIFF) == [
        Action("B", 1, "n1", reason="grow: marginal throughput 1.00"),
        Action("A", 1, "n1", reason="grow: marginal throughput 0.84"),
        Action("A", 1, "n1", reason="grow: marginal throughput 0.78"),
    ]


def test_priority_outranks_throughput_when_growing(cluster, job):
    state = cluster({"n1": 3}, [
        job("fast", 1, 4, {"n1": 1}),
        job("slow", 1, 4, {"n1": 1}, priority=1, throughput={1: 10, 2: 12, 3: 13})])
    assert [a.job for a in plan(state, SKIFF)] == ["slow"]


def test_fills_the_whole_cluster(cluster, job):
    state = cluster({"n1": 4, "n2": 4}, [job("A", 1, 10, {"n1": 2})])
    actions = plan(state, SKIFF)
    assert len(actions) == 6 and all(a.delta == 1 for a in actions)
    assert all(n.free.cpu == 0 for n in state.applied(actions).nodes)


def test_services_take_the_lowest_priority_spare_workers(cluster, job):
    state = cluster({"n1": 4}, [
        job("hi", 1, 4, {"n1": 2}, priority=1),
        job("lo", 1, 4, {"n1": 2})],
        [Service("web", demand=1, pods=0, pod=Resources(1.0, 1.0))])
    assert plan(state, SKIFF) == [Action("lo", -1, "n1", reason="make room for service web")]


def test_cooling_jobs_do_not_grow(cluster, job):
    state = cluster({"n1": 4}, [
        job("A", 1, 4, {"n1": 1}, last_scaled=95.0),
        job("B", 1, 2, {"n1": 1})])
    assert plan(state, SKIFF) == [Action("B", 1, "n1", reason="grow: marginal throughput 1.00")]
    assert len(plan(state, Config(policy="skiff", cooldown=5.0))) == 2  # 2 CPUs free


def test_throughput_curve_interpolates_and_stays_flat_past_the_last_measure(job):
    measured = job("A", 1, 8, throughput={2: 20.0, 4: 30.0})
    assert [throughput(measured, n) for n in range(6)] == [0, 10, 20, 25, 30, 30]
    assert efficiency(measured, 4) == 0.0
    assert efficiency(measured, 2) == (25 - 20) * 2 / 20
    assert throughput(job("B", 1, 8), 3) == 3 and efficiency(job("B", 1, 8), 3) == 1.0
