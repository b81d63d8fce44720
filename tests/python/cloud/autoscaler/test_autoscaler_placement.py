"""Node choice, the services' expected places, and the working copy's guard for them."""
from skiff.cloud.autoscaler import Config, Resources, Service
from skiff.cloud.autoscaler.draft import Draft
from skiff.cloud.autoscaler.placement import busiest, gang, most_free, reserve

ONE = Resources(1.0, 1.0)


def test_node_choice_breaks_ties_by_name():
    free = {"b": Resources(2.0, 8.0), "a": Resources(2.0, 8.0), "c": Resources(0.5, 8.0)}
    assert most_free(free, ONE) == "a"
    assert gang(free, ONE, 4) == {"a": 2, "b": 2}
    assert gang(free, ONE, 5) is None
    assert busiest({"b": 2, "a": 2, "c": 1}) == "a"


def test_pending_pods_take_the_best_fitting_node_biggest_first():
    free = {"x": Resources(4.0, 8.0), "y": Resources(3.0, 8.0)}
    services = [Service("small", 2, 0, Resources(2.0, 1.0)),
                Service("big", 1, 0, Resources(3.0, 1.0))]
    room, placed, unplaced = reserve(services, free)
    # big (3) fills y exactly; both smalls then go to x.
    assert placed == {"big": 1, "small": 2} and unplaced == []
    assert room == {"x": Resources(0.0, 6.0), "y": Resources(0.0, 7.0)}
    assert reserve(services, {"x": Resources(4.0, 8.0)})[1:] == (
        {"big": 1, "small": 0}, services[:1] * 2)


def test_a_change_by_choice_never_takes_a_pending_pods_place(cluster, job):
    state = cluster({"x": 3}, [job("A", 1, 4, {"x": 1})],
                    [Service("web", 1, 0, Resources(2.0, 1.0))])
    draft = Draft(state, Config())
    assert not draft.add("A", "x", "grow") and draft.actions == []
    assert draft.jobs["A"].workers == 1 and draft.free["x"] == Resources(2.0, 63.0)
