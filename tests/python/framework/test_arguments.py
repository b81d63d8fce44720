"""skiff.framework.arguments: the checks of axis, count and integer arguments and the
error types they raise (each a skiff.Error and the Python error numpy / Paddle raise)."""
import numpy as np
import pytest

import skiff
from skiff.framework import arguments
from skiff.framework.arguments import ArgumentError, ArgumentTypeError, AxisError


def test_error_types_are_skiff_errors_and_python_errors():
    assert issubclass(AxisError, ValueError) and issubclass(AxisError, IndexError)
    assert issubclass(ArgumentError, ValueError)
    assert issubclass(ArgumentTypeError, TypeError)
    for cls in (AxisError, ArgumentError, ArgumentTypeError):
        assert issubclass(cls, skiff.Error)


def test_axis_normalizes_against_the_rank():
    assert arguments.axis("f", -1, 3) == 2
    assert arguments.axis("f", 0, 3) == 0
    assert arguments.axis("f", np.int64(-3), 3) == 0
    assert arguments.axis("f", skiff.to_tensor(1), 3) == 1
    assert arguments.axis("f", skiff.to_tensor([2]), 3) == 2


@pytest.mark.parametrize("value", [3, -4, 10**20, 2**63, -(2**63)])
def test_axis_out_of_range_names_function_argument_value_and_range(value):
    with pytest.raises(AxisError, match=rf"^f: dim {value} is out of range for a 3-D tensor "
                                        r"\(valid: \[-3, 2\]\)$"):
        arguments.axis("f", value, 3, "dim")


def test_axis_of_a_0d_tensor_says_it_has_no_axes():
    with pytest.raises(AxisError, match="f: axis 0 is out of range: the tensor is 0-D"):
        arguments.axis("f", 0, 0)


@pytest.mark.parametrize("value", [1.0, True, np.bool_(False), "0", None, [0],
                                   skiff.to_tensor(1.0), skiff.to_tensor([0, 1])])
def test_axis_refuses_what_is_not_an_integer(value):
    with pytest.raises(ArgumentTypeError, match="^f: axis must be an int"):
        arguments.axis("f", value, 3)


def test_axes_takes_ints_lists_tuples_and_tensors_in_order():
    assert arguments.axes("f", 1, 3) == [1]
    assert arguments.axes("f", [-1, 0], 3) == [2, 0]
    assert arguments.axes("f", (0, 1), 3) == [0, 1]
    assert arguments.axes("f", skiff.to_tensor([2, 0]), 3) == [2, 0]
    assert arguments.axes("f", [], 3) == []


def test_axes_refuses_repeats_out_of_range_and_non_integers():
    with pytest.raises(ArgumentError, match=r"f: axis \[0, -3\] names an axis more than once"):
        arguments.axes("f", [0, -3], 3)
    assert arguments.axes("f", [0, 0], 3, unique=False) == [0, 0]
    with pytest.raises(AxisError, match=r"f: axis 5 is out of range for a 3-D tensor"):
        arguments.axes("f", [0, 5], 3)
    with pytest.raises(ArgumentTypeError, match=r"f: axis\[1\] must be an int, got float"):
        arguments.axes("f", [0, 1.5], 3)
    with pytest.raises(ArgumentTypeError, match="f: axis must be an int or a list of ints"):
        arguments.axes("f", "01", 3)


def test_count_bounds():
    assert arguments.count("f", "n", 0) == 0
    assert arguments.count("f", "n", np.int32(5), 1, 5) == 5
    with pytest.raises(ArgumentError, match="^f: n must be >= 0, got -1$"):
        arguments.count("f", "n", -1)
    with pytest.raises(ArgumentError, match=r"^f: k must be in \[1, 3\] \(3 is the size of "
                                            r"axis 1\), got 4$"):
        arguments.count("f", "k", 4, 1, 3, "the size of axis 1")
    with pytest.raises(ArgumentTypeError, match="f: n must be an int, got float 2.0"):
        arguments.count("f", "n", 2.0)
    with pytest.raises(ArgumentTypeError, match="f: n must be an int, got bool True"):
        arguments.count("f", "n", True)


def test_counts_names_the_entry():
    assert arguments.counts("f", "sizes", [1, 0, 2]) == [1, 0, 2]
    with pytest.raises(ArgumentError, match=r"f: sizes\[1\] must be >= 0, got -2"):
        arguments.counts("f", "sizes", [1, -2])


def test_tensor_and_dtype_checks():
    x = skiff.ones([2], dtype="int32")
    assert arguments.tensor("f", "x", x) is x
    with pytest.raises(ArgumentTypeError, match="^f: x must be a Tensor, got list$"):
        arguments.tensor("f", "x", [1, 2])
    assert arguments.is_floating(skiff.ones([2])) and not arguments.is_floating(x)
    with pytest.raises(ArgumentTypeError,
                       match="^f: x must be a float32 or float64 Tensor, got int32$"):
        arguments.dtype_in("f", "x", x, ["float32", "float64"])
