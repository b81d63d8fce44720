"""`assert` and `print` in to_static code: on a Tensor, assert becomes an assert op, checked
when the program runs (the error names the line and shows the condition), and print a print
op showing the value at each run; on Python values both act while tracing, as Python's."""
import numpy as np
import pytest

import skiff


def checked(x):
    assert skiff.all(x > -10.0), "x too small"
    assert x.shape[-1] == 2
    return x * 2.0


def test_a_tensor_assert_runs_with_the_program():
    f = skiff.jit.to_static(checked)
    np.testing.assert_allclose(f(skiff.to_tensor(np.array([1.0, 2.0], np.float32))).numpy(),
                               [2.0, 4.0])
    with pytest.raises(skiff.Error, match=r"test_jit_assert.py:11: assertion failed: x too "
                                          r"small(.|\n)*data: \[false\]"):
        f(skiff.to_tensor(np.array([1.0, -20.0], np.float32)))


def test_a_python_assert_is_checked_while_tracing():
    f = skiff.jit.to_static(checked)
    with pytest.raises(AssertionError):
        f(skiff.to_tensor(np.ones([3], np.float32)))


def test_print_of_a_tensor_shows_its_value_each_time_the_program_runs(capfd):
    """print() in converted code: Python values print while tracing as Python would; each
    static variable among the arguments is shown by a print op when the program runs
    (inside a loop on a Tensor: at every step), after the other arguments."""
    def f(x, n):
        print("traced once")
        for i in range(n):
            x = x * 2.0
            print("step", x)
        return x

    g = skiff.jit.to_static(f)
    x = skiff.to_tensor(np.array([1.0, 3.0], np.float32))
    capfd.readouterr()
    g(x, skiff.to_tensor(2))
    first = capfd.readouterr().out
    assert first.count("traced once") == 1
    assert first.count("step") == 2 and "data: [2 6]" in first and "data: [4 12]" in first
    g(x, skiff.to_tensor(3))  # no new trace: the print op runs, Python's print does not
    again = capfd.readouterr().out
    assert "traced once" not in again and again.count("step") == 3 and "[8 24]" in again
