"""Values made inside converted code (to_tensor, assign, full, zeros, ones, *_like,
arange, numpy arrays, Python numbers) that a loop carries or an `if` on a Tensor
merges, and `if` / `else` on Tensors with early returns. `P` is the framework (skiff or
paddle), bound by corpus.load."""
import numpy as np

from .corpus import Case

X = np.array([0.5, -1.0, 2.0], np.float32)
NEG = np.array([-0.5, -1.0, 0.25], np.float32)
N3 = np.array(3, np.int64)


def zeros_like_accumulator(x, n):
    s = P.zeros_like(x)
    i = P.to_tensor(0)
    while i < n:
        s = s + x * 2.0
        i = i + 1
    return s


def full_carried(x, n):
    total = P.full([3], 0.5)
    for i in range(n):
        total = total * 0.5 + x
    return total


def ones_zeros_carried(x, n):
    a = P.ones([3])
    b = P.zeros([3])
    i = P.zeros([1], dtype="int64")
    while i < n:
        a, b = b + x, a * 0.5
        i = i + P.ones([1], dtype="int64")
    return a + b


def assign_numpy_carried(x, n):
    step = P.assign(np.array([1.0, 2.0, 3.0], np.float32))
    s = x
    for i in range(n):
        s = s + x * step
        step = step * 0.5
    return s


def arange_in_loop(x, n):
    s = x
    for i in range(n):
        s = s + P.arange(3).astype("float32")
    return s


def to_tensor_numpy_in_loop(x, n):
    s = x
    i = P.to_tensor(0)
    while i < n:
        s = s + P.to_tensor(np.ones(3, np.float32))
        i += 1
    return s


def python_float_carried(x, n):
    """A Python float the loop turns into a Tensor on its first step."""
    s = 0.0
    for i in range(n):
        s = s + x
    return s


def python_int_counted_by_tensor_loop(x):
    count = 0
    while P.sum(x) < 10.0:
        x = x + 1.0
        count += 1
    return x, count


def to_tensor_in_branch(x):
    if P.mean(x) > 0:
        y = P.to_tensor([1.0, 1.0, 1.0])
    else:
        y = x * 2.0
    return y + x


def ones_like_in_branch(x):
    if P.max(x) > 1.0:
        y = P.ones_like(x)
    else:
        y = P.zeros_like(x)
    return x * y


def full_like_and_python_number_branches(x):
    if P.sum(x) > 0:
        y = P.full_like(x, 2.0)
        k = 1.0
    else:
        y = x
        k = 3.0
    return y * k


def python_number_branch_outputs(x):
    if P.mean(x) > 0:
        k = 1.5
    else:
        k = -2.0
    return x * k


def numpy_scalar_branch_outputs(x):
    if P.mean(x) > 0:
        k = np.float32(1.5)
    else:
        k = np.float32(-2.0)
    return x * k


def numpy_array_branch_outputs(x):
    if P.mean(x) > 0:
        w = np.ones(3, np.float32)
    else:
        w = np.full(3, 2.0, np.float32)
    return x * P.to_tensor(w)


def zeros_made_in_loop_body(x, n):
    s = x
    i = P.to_tensor(0)
    while i < n:
        z = P.zeros([3])
        s = s + z + 1.0
        i += 1
    return s


def if_else_early_return(x):
    if P.mean(x) > 0:
        return x * 2.0
    return x - 1.0


def elif_chain_with_returns(x):
    m = P.mean(x)
    if m > 1.0:
        return x * 3.0
    elif m > 0:
        return x * 2.0
    else:
        y = x + 1.0
    return y * y


def nested_if_return_tuple(x):
    if P.sum(x) > 0:
        if P.max(x) > 1.5:
            return x, x * 2.0
        return x + 1.0, x
    return x * 0.0, x - 1.0


def return_constant_from_branch(x):
    if P.mean(x) > 0:
        return P.ones([3])
    return x


def setitem_in_tensor_loop(x, n):
    y = P.zeros([3])
    i = P.to_tensor(0)
    while i < n:
        y[i] = x[i] * 2.0
        i += 1
    return y


def numpy_array_changed_by_loop(x, n):
    w = np.ones(3, np.float32)
    for i in range(n):
        x = x * P.to_tensor(w)
        w = w * 0.5 + 1.0
    return x


def none_initialised_accumulator(x, n):
    """The first step takes the `is None` branch, the later ones the other (skiff runs the
    first step before the while op)."""
    h = None
    for i in range(n):
        if h is None:
            h = x
        else:
            h = h + x
    return h


def none_kept_by_tensor_branch(x, n):
    """Refused: after the loop `best` is None or a Tensor depending on the values; a program
    holds one kind (give it a Tensor before the loop)."""
    best = None
    for i in range(n):
        x = x * 2.0
        if P.sum(x) > 100.0:
            best = x
    return x if best is None else best


CASES = [
    Case(zeros_like_accumulator, (X, N3), grad=0),
    Case(none_kept_by_tensor_branch, (X, N3), grad=0),
    Case(numpy_array_changed_by_loop, (X, N3), grad=0),
    Case(none_initialised_accumulator, (X, N3), grad=0),
    Case(full_carried, (X, N3), grad=0),
    Case(ones_zeros_carried, (X, N3), grad=0),
    Case(assign_numpy_carried, (X, N3), grad=0),
    Case(arange_in_loop, (X, N3), grad=0),
    Case(to_tensor_numpy_in_loop, (X, N3), grad=0),
    Case(python_float_carried, (X, N3), grad=0),
    Case(python_int_counted_by_tensor_loop, (X,), grad=0),
    Case(to_tensor_in_branch, (X,), grad=0),
    Case(to_tensor_in_branch, (NEG,), grad=0, label="to_tensor_in_branch_false"),
    Case(ones_like_in_branch, (X,), grad=0),
    Case(full_like_and_python_number_branches, (X,), grad=0),
    Case(python_number_branch_outputs, (NEG,), grad=0),
    Case(numpy_scalar_branch_outputs, (X,), grad=0),
    Case(numpy_array_branch_outputs, (X,), grad=0),
    Case(zeros_made_in_loop_body, (X, N3), grad=0),
    Case(if_else_early_return, (X,), grad=0),
    Case(if_else_early_return, (NEG,), grad=0, label="if_else_early_return_false"),
    Case(elif_chain_with_returns, (NEG,), grad=0),
    Case(nested_if_return_tuple, (X,), grad=0),
    Case(return_constant_from_branch, (NEG,), grad=0),
    Case(setitem_in_tensor_loop, (X, N3), grad=0),
]
