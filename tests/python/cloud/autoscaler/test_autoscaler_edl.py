"""The "edl" policy on small clusters, each expectation worked out by hand."""
import pytest

from skiff.cloud.autoscaler import Action, Config, Resources, Service, plan

EDL = Config(policy="edl", max_load=1.0)


def test_grows_the_least_fulfilled_job_first_up_to_the_load_line(cluster, job):
    # 8 CPUs, line 6; A at 0.5 fulfilled, B at 0; requests 3 -> three growths.
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 3, {"n1": 2}, submitted=0),
        job("B", 1, 5, {"n2": 1}, submitted=1)])
    assert plan(state, Config(policy="edl", max_load=0.75)) == [
        Action("B", 1, "n2", reason="grow: least fulfilled (0.00)"),  # n2 has 3 free
        Action("B", 1, "n1", reason="grow: least fulfilled (0.25)"),  # 2 and 2: by name
        Action("A", 1, "n2", reason="grow: least fulfilled (0.50)"),  # tie: A submitted first
    ]


def test_shrinks_the_most_fulfilled_job_while_requests_are_over_the_line(cluster, job):
    # requests 8 of 8, line 6: A (1.0) then B (0.75 > A's 0.67), each from its busiest node.
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 4, {"n1": 3, "n2": 1}),
        job("B", 1, 5, {"n1": 1, "n2": 3})])
    assert plan(state, Config(policy="edl", max_load=0.75)) == [
        Action("A", -1, "n1", reason="shrink: requests 1.00 > 0.75"),
        Action("B", -1, "n2", reason="shrink: requests 0.88 > 0.75"),
    ]


def test_admits_a_pending_job_by_shrinking_running_ones(cluster, job):
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 8, {"n1": 4, "n2": 4}),
        job("C", 2, 4, submitted=5)])
    assert plan(state, EDL) == [
        Action("A", -1, "n1", reason="make room for job C"),  # 4 and 4: by name
        Action("A", -1, "n2", reason="make room for job C"),
        Action("C", 2, placement={"n1": 1, "n2": 1}, reason="admit"),
    ]


def test_admits_in_submission_order_regardless_of_priority(cluster, job):
    state = cluster({"n1": 2}, [
        job("late", 2, 2, elastic=False, priority=9, submitted=2),
        job("early", 2, 2, elastic=False, submitted=1)])
    assert plan(state, EDL) == [Action("early", 2, placement={"n1": 2}, reason="admit")]


def test_makes_room_for_a_services_pending_pods_even_while_cooling(cluster, job):
    # web wants 2 pods of 2 CPUs, nothing is free; A (cooling) gives 4 workers on n1,
    # the static job S gives none.
    state = cluster({"n1": 4, "n2": 4}, [
        job("A", 1, 8, {"n1": 4, "n2": 2}, last_scaled=99.0),
        job("S", 2, 2, {"n2": 2}, elastic=False)],
        [Service("web", demand=2, pods=0, pod=Resources(2.0, 1.0))])
    assert plan(state, EDL) == [Action("A", -1, "n1", reason="make room for service web")] * 4


def test_a_pod_no_node_could_hold_still_counts_in_requests(cluster, job):
    # No shrink makes room for a 5-CPU pod on 4-CPU nodes, but EDL counts its request:
    # 8 + 5 > 8, so A shrinks by 5 over the line, never "for" the service.
    state = cluster({"n1": 4, "n2": 4}, [job("A", 1, 8, {"n1": 4, "n2": 4})],
                    [Service("big", demand=1, pods=0, pod=Resources(5.0, 1.0))])
    actions = plan(state, EDL)
    assert [a.reason[:16] for a in actions] == ["shrink: requests"] * 5


def test_never_shrinks_a_static_job_or_below_min(cluster, job):
    state = cluster({"n1": 4}, [
        job("S", 2, 2, {"n1": 2}, elastic=False),
        job("A", 2, 4, {"n1": 2})])
    assert plan(state, Config(policy="edl", max_load=0.5)) == []


def test_cooling_jobs_are_neither_grown_nor_shrunk_by_choice(cluster, job):
    grow = cluster({"n1": 4}, [
        job("A", 1, 4, {"n1": 1}, last_scaled=95.0),   # least fulfilled but cooling
        job("B", 1, 4, {"n1": 2})])
    assert plan(grow, EDL) == [
        Action("B", 1, "n1", reason="grow: least fulfilled (0.33)")]
    shrink = cluster({"n1": 4}, [
        job("A", 1, 2, {"n1": 2}, last_scaled=95.0),   # most fulfilled but cooling
        job("B", 1, 3, {"n1": 2})])
    assert plan(shrink, Config(policy="edl", max_load=0.75)) == [
        Action("B", -1, "n1", reason="shrink: requests 1.00 > 0.75")]
    assert plan(shrink, Config(policy="edl", max_load=0.75, cooldown=5.0))[0].job == "A"


def test_unknown_policy_names_the_known_ones(cluster):
    with pytest.raises(ValueError, match="edl, skiff"):
        plan(cluster({"n1": 4}), Config(policy="fifo"))
