"""What to_static cannot convert faithfully is a skiff.Error naming the user's file and
line (never a silently different result): a variable that a branch on a Tensor may leave
None, a value defined in one branch only, returns inside tensor loops of values whose
shape is known only at run time, attribute assignments in tensor branches, Python scalars
of traced Tensors."""
import inspect

import numpy as np
import pytest

import skiff
from skiff.jit import to_static


def tensor(values, dtype="float32"):
    return skiff.to_tensor(np.asarray(values, dtype=dtype))


def line_of(fn, text):
    """``file:line`` of the first line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return f"{inspect.getsourcefile(fn)}:{start + k}"
    raise AssertionError(text)


def raises_at(fn, text, *args, match=None):
    with pytest.raises(skiff.Error) as err:
        to_static(fn)(*args)
    message = str(err.value)
    assert line_of(fn, text) in message, message
    if match:
        assert match in message, message
    return message


def none_before_loop(x, n):
    h = None
    for _ in range(n):
        if h is None:
            h = x
        else:
            h = h + x
    return h


def test_none_before_a_tensor_loop_runs_the_first_step_before_it():
    """`h = None` before a loop on a Tensor that assigns it: the first step runs before the
    loop, as Python runs it, so converted values and gradients equal eager ones; a loop that
    runs no step (eager would return None) stops the program with an error naming the
    variable and the loop's line."""
    n = tensor(3, "int64")
    for steps in (n, 3):  # (with a Python count the loop runs in Python)
        x_eager, x_static = tensor([1.0, 2.0]), tensor([1.0, 2.0])
        x_eager.stop_gradient = x_static.stop_gradient = False
        want, got = none_before_loop(x_eager, steps), to_static(none_before_loop)(x_static, steps)
        np.testing.assert_allclose(got.numpy(), want.numpy())
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(x_static.grad.numpy(), x_eager.grad.numpy())
    with pytest.raises(skiff.Error) as err:
        to_static(none_before_loop)(tensor([1.0, 2.0]), tensor(0, "int64"))
    message = str(err.value)
    assert line_of(none_before_loop, "for _ in range(n)") in message, message
    assert "ran no step" in message and "'h' is None before the loop" in message, message


def none_kept_by_a_branch(x, n):
    h = None
    for _ in range(n):
        x = x + 1.0
        if x.sum() > 100.0:
            h = x
    return x, h


def test_none_that_a_tensor_branch_may_keep_is_an_error():
    raises_at(none_kept_by_a_branch, "if x.sum() > 100.0", tensor([1.0]), tensor(3, "int64"),
              match="None in the other branch")


def one_branch(x):
    if x.sum() > 0:
        y = x * 2.0
    return y


def test_value_from_one_branch_only_is_an_error():
    raises_at(one_branch, "if x.sum() > 0", tensor([1.0]), match="'y'")


def local_in_one_branch(x):
    if x.sum() > 0:
        t = x * 2.0
        x = t + 1.0
    return x


def test_branch_locals_not_used_after_are_fine():
    f = to_static(local_in_one_branch)
    assert np.allclose(f(tensor([1.0])).numpy(), [3.0])
    assert np.allclose(f(tensor([-1.0])).numpy(), [-1.0])


def return_in_tensor_loop(x):
    while x.sum() < 10.0:
        if x.sum() > 5.0:
            return x
        x = x + 1.0
    return -x


def test_return_inside_a_tensor_loop_of_run_time_shape_is_an_error():
    """A `return` inside a loop on a Tensor converts (tests/python/jit/
    test_jit_loop_learned_values.py) when the returned value's shape is known while
    tracing; one known only when the program runs is refused at its `if`."""
    np.testing.assert_allclose(to_static(return_in_tensor_loop)(tensor([1.0])).numpy(), [6.0])
    g = to_static(return_in_tensor_loop,
                  input_spec=[skiff.static.InputSpec([None], "float32")])
    with pytest.raises(skiff.Error) as err:
        g(tensor([1.0]))
    message = str(err.value)
    assert line_of(return_in_tensor_loop, "while x.sum() < 10.0") in message, message
    assert "a `return` inside this loop" in message and "shape [-1]" in message, message


class Holder:
    def __init__(self):
        self.last = None

    def step(self, x):
        if x.sum() > 0:
            self.last = x
        return x + 1.0


def test_attribute_assignment_in_a_tensor_branch_is_an_error():
    h = Holder()
    raises_at(Holder.step, "if x.sum() > 0", h, tensor([1.0]), match="self.last")


def python_scalar_of_a_counter(x, n):
    for i in range(n):
        x = x + float(i)
    return x


def test_python_scalar_of_a_traced_tensor_is_an_error():
    raises_at(python_scalar_of_a_counter, "x = x + float(i)", tensor([1.0]), tensor(2, "int64"),
              match="float() of a Tensor")


def shape_change(x, n):
    h = skiff.zeros([1], "float32")
    for _ in range(n):
        h = skiff.concat([h, x])
    return h


def test_loop_variable_changing_shape_is_an_error():
    raises_at(shape_change, "for _ in range(n)", tensor([1.0, 2.0]), tensor(2, "int64"),
              match="'h' has shape [1] before the loop and [3] after a step")


def list_in_one_branch(x):
    out = []
    if x.sum() > 0:
        out.append(x)
    return out


def test_list_changed_in_one_tensor_branch_is_an_error():
    raises_at(list_in_one_branch, "if x.sum() > 0", tensor([1.0]), match="'out'")


def number_then_tensor(x, n):
    s = 0
    for _ in range(n):
        s = s + x.sum()
    return s


def test_python_number_becomes_a_tensor_of_the_bodys_dtype():
    out = to_static(number_then_tensor)(tensor([1.5, 2.0]), tensor(3, "int64"))
    assert out.dtype == skiff.float32
    assert np.allclose(out.numpy(), 10.5)


class Recorder:
    def __init__(self):
        self.seen = []

    def run(self, x, n):
        for _ in range(n):
            x = x * 2.0
            self.seen.append(x)
        return x


def test_changing_an_object_in_a_tensor_loop_is_an_error():
    rec = Recorder()
    raises_at(Recorder.run, "for _ in range(n)", rec, tensor([1.0]), tensor(2, "int64"),
              match="self.seen.append")
    out = to_static(Recorder.run)(rec, tensor([1.0]), 2)  # a Python loop: fine
    assert np.allclose(out.numpy(), [4.0]) and len(rec.seen) == 2


def pop_inside_tensor_loop(x, n):
    xs = [x]
    for _ in range(n):
        xs.append(xs[-1] * 2.0)
        if len(xs) > 2:
            xs.pop(0)
    return skiff.stack(xs)


def test_pop_of_a_list_a_tensor_loop_carries_is_an_error():
    raises_at(pop_inside_tensor_loop, "for _ in range(n)", tensor([1.0]), tensor(3, "int64"),
              match="inside the loop it can only grow (append): pop()")
