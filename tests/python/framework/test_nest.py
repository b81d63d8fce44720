"""framework.nest: the one flattener of nested structures (cond/while_loop, to_static, Model)."""
import collections

from skiff.framework import nest

Pair = collections.namedtuple("Pair", "a b")


def test_round_trip_keeps_every_kind_of_container():
    value = {"h": 1, "cs": [2, (3, Pair(4, 5))], "none": None}
    leaves = []
    spec = nest.flatten(value, leaves)
    assert leaves == [2, 3, 4, 5, 1, None]  # sorted keys: cs, h, none
    rebuilt = nest.pack(spec, leaves)
    assert rebuilt == value and isinstance(rebuilt["cs"][1][1], Pair)
    assert nest.pack(spec, [x * 10 if x else x for x in leaves])["cs"][1][1] == Pair(40, 50)


def test_dicts_filled_in_another_order_have_one_structure():
    a, b = {}, {}
    a["x"], a["y"] = 1, 2
    b["y"], b["x"] = 2, 1
    assert nest.flatten(a, []) == nest.flatten(b, [])
    assert nest.flatten({1: "a", "k": "b"}, [])[1] == [1, "k"]  # keys that do not sort


def test_none_as_structure_and_dicts_as_leaves():
    leaves = []
    spec = nest.flatten([None, 1], leaves, none_is_leaf=False)
    assert leaves == [1] and nest.pack(spec, [7]) == [None, 7]
    assert nest.leaves_of([{"a": 1}, [2]], dicts=False) == [{"a": 1}, 2]
