"""Arguments that are lists of Tensors or variadic: an empty list is refused as Paddle refuses
it (ArgumentError), an entry of the wrong kind names its position (ArgumentTypeError)."""
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


@pytest.mark.parametrize("fn, param", [("hstack", "x"), ("vstack", "x"), ("dstack", "x"),
                                       ("column_stack", "x"), ("concat", "x"), ("stack", "x"),
                                       ("add_n", "inputs"), ("broadcast_tensors", "input"),
                                       ("cartesian_prod", "x")])
def test_empty_lists_of_tensors_are_refused(fn, param):
    with _raises(ArgumentError, fn, param, "at least one Tensor"):
        getattr(skiff, fn)([])


def test_variadic_entries_are_checked():
    with _raises(ArgumentTypeError, "einsum", r"operands\[0\]", "int"):
        skiff.einsum("sum", 2**64)
    with _raises(ArgumentTypeError, "permute", "dims", "NoneType"):
        skiff.permute(skiff.ones([2, 2]), None)
    with _raises(ArgumentTypeError, "broadcast_shapes", r"shapes\[0\]", "str"):
        skiff.broadcast_shapes("fro")
    assert skiff.broadcast_shapes([2, 1], [3]) == [2, 3]
    assert skiff.permute(skiff.ones([2, 3]), 1, 0).shape == [3, 2]


def test_summary_needs_a_layer():
    with _raises(ArgumentTypeError, "summary", "net", "list"):
        skiff.summary([()], input=skiff.ones([2]))
