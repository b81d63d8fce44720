"""The to_static source transform keeps Python's meaning when conditions are Python
values: converted functions give the same results as the originals over many inputs
(loops with break/continue/else, early returns, nested control flow, closures,
methods), and what cannot be converted is an error naming the user's line."""
import inspect

import pytest

import skiff
from skiff.jit.converter import convert_function


def same(fn, *cases):
    converted = convert_function(fn)
    for args in cases:
        args = args if isinstance(args, tuple) else (args,)
        assert converted(*args) == fn(*args), (fn.__name__, args)
    return converted


def loop_break_continue(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 7:
            break
        total += i
    else:
        total += 100
    return total, i if n > 0 else -1


def while_else(n):
    k = 0
    while k < n:
        k += 2
        if k == 6:
            break
    else:
        k = -k
    return k


def early_returns(x):
    if x < 0:
        return "negative"
    if x == 0:
        return "zero"
    y = x * 2
    if y > 10:
        return "big"
    return y


def return_in_loops(n):
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return i, j
    return None


def nested(n):
    out = []
    i = 0
    while i < n:
        j = 0
        while True:
            j += 1
            if j >= i:
                break
            if (i + j) % 2:
                continue
            out.append((i, j))
        i += 1
    return out


def ranges(a, b, s):
    got = []
    for k in range(a, b, s):
        got.append(k)
    return got, sum(range(a, b, s))


def iterables(xs):
    acc = []
    for i, (a, b) in enumerate(zip(xs, xs[1:])):
        if a < b and not (i == 2):
            acc.append(a * b)
        elif a == b or a > 3:
            acc.append(-1)
    return acc, [x for x in xs if x and x > 1], (xs[0] if xs else None)


def bool_ops(a, b):
    r1 = a and b
    r2 = a or b
    r3 = not a
    r4 = a if b else -a
    return r1, r2, r3, r4, (a > 0 and b > 0 or a == b)


def test_loops_break_continue_else():
    same(loop_break_continue, 0, 1, 3, 5, 8, 12)
    same(while_else, 0, 3, 5, 9)
    same(nested, 0, 1, 4, 6)
    same(ranges, (0, 5, 1), (5, 0, -1), (2, 11, 3), (3, 3, 1), (10, -7, -4))


def test_returns_and_iterables():
    same(early_returns, -3, 0, 2, 9)
    same(return_in_loops, 0, 3, 4, 7)
    same(iterables, [], [1], [1, 2, 3, 2, 5], [4, 4, 0, 9], [0, 0, 0])
    same(bool_ops, (0, 3), (2, 0), (2, 3), (-1, -1), (0, 0))


def test_closures_defaults_and_methods():
    scale = 3

    def inner(x, k=2, *, plus=1):
        if x > 2:
            return x * scale * k + plus
        return [scale + x for _ in range(k)]

    same(inner, 1, 3, (3, 4))
    assert convert_function(inner)(5, plus=10) == inner(5, plus=10)

    class Base:
        def value(self, x):
            return x + 1

    class Child(Base):
        def __init__(self):
            self.__secret = 5

        def value(self, x):
            if x > 0:
                return super().value(x) + self.__secret
            return -1

    c = Child()
    converted = convert_function(Child.value)
    assert converted(c, 3) == c.value(3) == 9
    assert converted(c, -3) == -1


def test_calls_are_converted_recursively():
    def helper(x):
        return "pos" if x > 0 else "neg"

    def outer(x):
        if helper(x) == "pos":
            return [helper(v) for v in (x, -x)]
        return len([x]), helper(x)

    same(outer, 1, -1, 0)


def test_unassigned_names_raise_like_python():
    def maybe(x):
        if x > 0:
            y = 1
        return y

    converted = convert_function(maybe)
    assert converted(1) == 1
    with pytest.raises(UnboundLocalError, match="'y'"):
        converted(-1) + 1


def test_unconvertible_code_names_the_line():
    def gen(x):
        yield x

    with pytest.raises(skiff.Error) as err:
        convert_function(gen)
    line = inspect.getsourcelines(gen)[1] + 1
    assert f"test_jit_transform.py:{line}" in str(err.value)
    assert "yield" in str(err.value)

    def try_return(x):
        while x > 0:
            try:
                return x
            finally:
                x -= 1
        return 0

    same(try_return, 3, 0)

    def return_in_try(x):
        if x > 0:
            try:
                return 1 / x
            except ZeroDivisionError:
                pass
        return 0

    with pytest.raises(skiff.Error) as err:
        convert_function(return_in_try)
    assert f"test_jit_transform.py:{inspect.getsourcelines(return_in_try)[1] + 3}" in str(err.value)
    assert "return" in str(err.value)


def test_line_numbers_are_kept():
    def fails(x):
        if x > 0:
            x = x + 1
        raise ValueError("here")

    converted = convert_function(fails)
    with pytest.raises(ValueError) as err:
        converted(1)
    tb = err.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_code.co_filename == __file__
    assert tb.tb_lineno == inspect.getsourcelines(fails)[1] + 3
