"""Loop idioms: `while` on Tensor and Python counters, `for` over range(Tensor), over a
Tensor, enumerate / zip over lists of Tensors, break / continue in nested loops and
`return` inside loops. `P` is the framework (skiff or paddle), bound by corpus.load."""
import numpy as np

from .corpus import Case

X = np.array([0.5, -1.0, 2.0], np.float32)
M = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, 4.0]], np.float32)


def n(value):
    return np.array(value, np.int64)


def while_tensor_counter(x, n):
    """The issue's loop: a Tensor counter from to_tensor, bounded by a Tensor."""
    i = P.to_tensor(0)
    s = x
    while i < n:
        s = s * 0.5 + x
        i = i + 1
    return s


def while_python_counter(x):
    i = 0
    while i < 3:
        x = P.tanh(x) + 1.0
        i += 1
    return x


def while_python_counter_tensor_bound(x, n):
    """A Python int counter compared with a Tensor: the counter becomes a Tensor."""
    i = 0
    while i < n:
        x = x + i
        i += 1
    return x


def while_tensor_condition(x):
    while P.sum(P.abs(x)) < 20.0:
        x = x * 2.0
    return x


def while_and_condition(x, n):
    i = P.to_tensor(0)
    while i < n and P.max(x) < 10.0:
        x = x + 1.5
        i += 1
    return x, i


def nested_while_tensor_counters(x, n):
    i = P.to_tensor(0)
    s = x
    while i < n:
        j = P.to_tensor(0)
        while j < i:
            s = s + x * 0.1
            j += 1
        i += 1
    return s


def for_range_tensor(x, n):
    s = x
    for i in range(n):
        s = s * 0.5 + x
    return s


def for_range_python(x):
    s = x
    for i in range(4):
        s = s * 0.5 + i
    return s


def for_range_start_stop_step_tensor(x, n):
    s = x
    for i in range(1, n, 2):
        s = s * 0.5 + x
    return s


def for_over_tensor(m):
    s = P.zeros([2])
    for row in m:
        s = s + row * row
    return s


def for_enumerate_tensor(m):
    s = P.zeros([2])
    for i, row in enumerate(m):
        s = s + row * i
    return s


def for_enumerate_list_of_tensors(x):
    s = x
    for i, t in enumerate([x, x * 2.0, P.tanh(x)]):
        s = s + t * i
    return s


def for_zip_lists_of_tensors(x):
    s = P.zeros([3])
    for a, b in zip([x, x + 1.0], [x * 3.0, x]):
        s = s + a * b
    return s


def break_in_nested_for(x, n):
    s = x
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s = s + x
    return s


def continue_in_nested_while(x, n):
    i = P.to_tensor(0)
    s = x
    while i < n:
        i += 1
        j = P.to_tensor(0)
        while j < 3:
            j += 1
            if j == 2:
                continue
            s = s + x * j.astype("float32")
    return s


def break_on_tensor_value(x, n):
    s = x
    i = P.to_tensor(0)
    while i < n:
        if P.sum(s) > 6.0:
            break
        s = s + x
        i += 1
    return s


def break_in_python_loop_over_list(x):
    s = x
    for t in [x, x * 2.0, x * 3.0]:
        if P.mean(s) > 1.5:
            break
        s = s + t
    return s


def return_inside_for(x, n):
    s = x
    for i in range(n):
        if P.sum(s) > 5.0:
            return s * 10.0
        s = s + x
    return s


def return_inside_while(x):
    i = 0
    while i < 10:
        x = x * 2.0
        if P.max(x) > 7.0:
            return x
        i += 1
    return x - 1.0


def variable_first_set_in_loop(x, n):
    y = x
    for i in range(n):
        z = x * 2.0
        y = y + z
    return y + z


def index_with_tensor_counter(m):
    i = P.to_tensor(0)
    s = P.zeros([2])
    while i < 3:
        s = s + m[i]
        i += 1
    return s


def result_first_set_in_loop_and_returned_early(x, n):
    for i in range(n):
        y = x * (i + 1.0)
        if P.sum(y) > 4.0:
            return y, i
    return y * 2.0, n


CASES = [
    Case(while_tensor_counter, (X, n(5)), grad=0),
    Case(result_first_set_in_loop_and_returned_early, (X, n(5)), grad=0),
    Case(while_python_counter, (X,), grad=0),
    Case(while_python_counter_tensor_bound, (X, n(4)), grad=0),
    Case(while_tensor_condition, (X,), grad=0),
    Case(while_and_condition, (X, n(5)), grad=0),
    Case(nested_while_tensor_counters, (X, n(4)), grad=0),
    Case(for_range_tensor, (X, n(4)), grad=0),
    Case(for_range_python, (X,), grad=0),
    Case(for_range_start_stop_step_tensor, (X, n(8)), grad=0),
    Case(for_over_tensor, (M,), grad=0),
    Case(for_enumerate_tensor, (M,), grad=0),
    Case(for_enumerate_list_of_tensors, (X,), grad=0),
    Case(for_zip_lists_of_tensors, (X,), grad=0),
    Case(break_in_nested_for, (X, n(4)), grad=0),
    Case(continue_in_nested_while, (X, n(3)), grad=0),
    Case(break_on_tensor_value, (X, n(10)), grad=0),
    Case(break_in_python_loop_over_list, (X,), grad=0),
    Case(return_inside_for, (X, n(10)), grad=0),
    Case(return_inside_while, (X,), grad=0),
    Case(variable_first_set_in_loop, (X, n(3)), grad=0),
    Case(index_with_tensor_counter, (M,), grad=0),
]
