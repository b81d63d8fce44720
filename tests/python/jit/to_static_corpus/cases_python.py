"""Python idioms inside converted code: len() of Tensors and lists, list append / pop in
loops, dicts of Tensors, tuple unpacking, isinstance / hasattr, print, assert, nested
functions, recursion, lambdas, *args / **kwargs, default arguments, decorators and
not_to_static. `P` is the framework (skiff or paddle), bound by corpus.load."""
import functools

import numpy as np

from .corpus import Case

X = np.array([0.5, -1.0, 2.0], np.float32)
M = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, 4.0]], np.float32)
N3 = np.array(3, np.int64)


def len_of_tensor(m):
    s = P.zeros([2])
    for i in range(len(m)):
        s = s + m[i]
    return s * len(m)


def len_of_list(x):
    parts = [x, x * 2.0]
    parts.append(x + 1.0)
    return P.stack(parts) * len(parts)


def list_append_in_python_loop(x):
    out = []
    for i in range(3):
        out.append(x * i)
    return P.concat(out)


def list_append_in_tensor_loop(x, n):
    out = []
    s = x
    for i in range(n):
        out.append(s)
        s = s * 0.5
    return P.stack(out)


def len_of_list_grown_in_tensor_loop(x, n):
    out = []
    i = P.to_tensor(0)
    while i < n:
        out.append(x)
        i += 1
    return x * len(out)


def list_pop_in_loop(x):
    stack = [x, x * 2.0, x * 3.0]
    s = P.zeros([3])
    while len(stack) > 0:
        s = s * 0.5 + stack.pop()
    return s


def list_pop_after_tensor_loop(x, n):
    out = [x]
    for i in range(n):
        out.append(out[-1] * 0.5)
    last = out.pop()
    return last + out[0]


def dict_of_tensors(x):
    d = {"a": x, "b": x * 2.0}
    d["c"] = d["a"] + d["b"]
    total = P.zeros([3])
    for key in d:
        total = total + d[key]
    return total, d


def dict_updated_in_tensor_loop(x, n):
    state = {"s": P.zeros_like(x), "h": x}
    i = P.to_tensor(0)
    while i < n:
        state["s"] = state["s"] + state["h"]
        state["h"] = state["h"] * 0.5
        i += 1
    return state["s"]


def _halves(x):
    return x * 0.5, x - 0.5


def tuple_unpacking(x):
    a, (b, c) = x, _halves(x)
    first, *rest = [a, b, c]
    return first + rest[0] * rest[1]


def tuple_swap_in_tensor_loop(x, n):
    a, b = x, x * 2.0
    i = P.to_tensor(0)
    while i < n:
        a, b = b, a + b
        i += 1
    return a


def isinstance_checks(x):
    values = (x, x * 2.0)
    if isinstance(values, (list, tuple)):
        x = values[0] + values[1]
    if isinstance(x, P.Tensor):
        x = x + 1.0
    return x


def print_tensors(x, n):
    print("input", x)
    i = P.to_tensor(0)
    while i < n:
        x = x + 1.0
        print(x)
        i += 1
    return x


def assert_on_tensor(x):
    assert P.all(x > -10.0), "x too small"
    assert x.shape[0] == 3
    return x * 2.0


def nested_function_with_closure(x):
    scale = 3.0

    def inner(y):
        return y * scale + x

    return inner(x) + inner(x * 2.0)


def _helper_with_branch(y):
    if P.mean(y) > 0:
        return y * 2.0
    return -y


def helper_with_tensor_branch(x):
    return _helper_with_branch(x) + _helper_with_branch(-x)


def _power(x, k):
    if k == 0:
        return x
    return _power(x * 1.5, k - 1)


def recursive_function(x):
    return _power(x, 3)


def lambdas(x):
    double = lambda t: t * 2.0  # noqa: E731 (the idiom under test)
    pick = lambda t: t if P.mean(t) > 0 else -t  # noqa: E731
    return double(x) + pick(x)


def _total(*tensors, **scales):
    s = tensors[0] * scales.get("first", 1.0)
    for t in tensors[1:]:
        s = s + t
    return s


def star_args_kwargs(x):
    return _total(x, x * 2.0, x, first=3.0) + _total(x)


def _scaled(x, scale=2.0, shift=None):
    if shift is not None:
        x = x + shift
    return x * scale


def default_arguments(x, times=2):
    return _scaled(x) + _scaled(x, shift=1.0) * times


def _twice(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(fn(x))
    return wrapper


@_twice
def _step(x):
    if P.sum(x) > 0:
        return x * 0.5
    return x + 1.0


def decorated_helper(x):
    return _step(x)


@_twice
def decorated_entry(x):
    """to_static applied to a decorated function (the wrapper calls it twice)."""
    return x * 0.5 + 1.0


@P.jit.not_to_static
def _numpy_weights(size):
    return np.linspace(0.0, 1.0, size).astype(np.float32)


def not_to_static_helper(x):
    weights = _numpy_weights(x.shape[0])
    return x * P.to_tensor(weights)


def conditional_expression(x):
    y = x * 2.0 if P.mean(x) > 0 else x - 1.0
    return y


def and_or_not_on_tensors(x):
    if P.mean(x) > 0 and not P.max(x) > 10.0:
        x = x + 1.0
    if P.min(x) > 0 or P.sum(x) > 2.0:
        x = x * 3.0
    return x


def list_pop_by_position_after_tensor_loop(x, n):
    out = [x]
    for i in range(n):
        out.append(out[-1] * 0.5 + x)
    second = out.pop(1)
    return second + out.pop() * 2.0 + out[0]


CASES = [
    Case(len_of_tensor, (M,), grad=0),
    Case(list_pop_by_position_after_tensor_loop, (X, N3), grad=0),
    Case(len_of_list, (X,), grad=0),
    Case(list_append_in_python_loop, (X,), grad=0),
    Case(list_append_in_tensor_loop, (X, N3), grad=0),
    Case(len_of_list_grown_in_tensor_loop, (X, N3), grad=0),
    Case(list_pop_in_loop, (X,), grad=0),
    Case(list_pop_after_tensor_loop, (X, N3), grad=0),
    Case(dict_of_tensors, (X,), grad=0),
    Case(dict_updated_in_tensor_loop, (X, N3), grad=0),
    Case(tuple_unpacking, (X,), grad=0),
    Case(tuple_swap_in_tensor_loop, (X, N3), grad=0),
    Case(isinstance_checks, (X,), grad=0),
    Case(print_tensors, (X, N3), grad=0),
    Case(assert_on_tensor, (X,), grad=0),
    Case(nested_function_with_closure, (X,), grad=0),
    Case(helper_with_tensor_branch, (X,), grad=0),
    Case(recursive_function, (X,), grad=0),
    Case(lambdas, (X,), grad=0),
    Case(star_args_kwargs, (X,), grad=0),
    Case(default_arguments, (X,), grad=0),
    Case(decorated_helper, (X,), grad=0),
    Case(decorated_entry, (X,), grad=0),
    Case(not_to_static_helper, (X,), grad=0),
    Case(conditional_expression, (X,), grad=0),
    Case(and_or_not_on_tensors, (X,), grad=0),
]
