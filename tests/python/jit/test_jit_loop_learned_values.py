"""Loop variables with no value (or a number's shape) before a loop on a Tensor: a result
first computed inside the loop, the value of a `return` inside it, a Python number the
loop turns into a Tensor of another shape. The loop is traced once to learn what its body
assigns, then built carrying zeros of that dtype and shape; converted values and
gradients equal eager ones. Lambdas convert too, wherever they are defined. What cannot
be learned is refused naming the line."""
import numpy as np
import pytest

import skiff
from skiff.static import InputSpec
from to_static_corpus import corpus

# The corpus's loops (its cases with `P` bound to skiff), run here with more arguments.
_CORPUS = {case.name: case.fn for case in corpus.load(skiff)}
first_assigned_in_loop = _CORPUS["variable_first_set_in_loop"]
return_inside_for = _CORPUS["return_inside_for"]
return_inside_python_counted_while = _CORPUS["return_inside_while"]
float_made_a_vector = _CORPUS["python_float_carried"]


def nested_first_assigned(x, n):
    total = x
    for _ in range(n):
        for _ in range(n):
            inner = total * 0.5
            total = total + inner
        last = inner + 1.0
    return total + last


def _x(values):
    x = skiff.to_tensor(np.array(values, np.float32))
    x.stop_gradient = False
    return x


CASES = [
    (first_assigned_in_loop, lambda: (_x([1.0, 2.0, 3.0]), skiff.to_tensor(3))),
    (return_inside_for, lambda: (_x([1.0, 2.0]), skiff.to_tensor(5))),   # returns at step 2
    (return_inside_for, lambda: (_x([0.1, 0.2]), skiff.to_tensor(3))),   # runs out of steps
    (return_inside_python_counted_while, lambda: (_x([1.0, 0.5]),)),
    (return_inside_python_counted_while, lambda: (_x([-1.0, -0.5]),)),  # never returns early
    (float_made_a_vector, lambda: (_x([1.0, -1.0, 2.0]), skiff.to_tensor(4))),
    (nested_first_assigned, lambda: (_x([1.0, 2.0]), skiff.to_tensor(2))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[
    "first-assigned", "return-in-for", "return-in-for-not-taken", "return-in-while",
    "return-in-while-not-taken", "float-made-vector", "nested"])
def test_values_and_gradients_equal_eager(fn, args):
    eager_args, static_args = args(), args()
    want = fn(*eager_args)
    got = skiff.jit.to_static(fn)(*static_args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(static_args[0].grad.numpy(), eager_args[0].grad.numpy(),
                               rtol=1e-6)


def test_a_loop_that_runs_no_step_leaves_the_zeros():
    """Where Python would have no value at all (the loop ran no step), the converted
    function holds zeros of the learned dtype and shape."""
    g = skiff.jit.to_static(first_assigned_in_loop)
    out = g(_x([1.0, 2.0, 3.0]), skiff.to_tensor(0))
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0, 3.0])


def test_what_cannot_be_learned_is_refused_naming_the_line():
    def read_before_assigned(x, n):
        for _ in range(n):
            z = z + x  # noqa: F821 (no value at the first step: eager fails too)
        return z

    def unknown_batch(x, n):
        for _ in range(n):
            z = x * 2.0
        return z

    with pytest.raises(skiff.Error, match=r"test_jit_loop_learned_values.py:\d+: variable 'z' "
                                          r"is not assigned before this loop.*reads it before "
                                          r"assigning it"):
        skiff.jit.to_static(read_before_assigned)(_x([1.0]), skiff.to_tensor(2))
    g = skiff.jit.to_static(unknown_batch, input_spec=[InputSpec([None, 2], "float32"),
                                                       InputSpec([], "int64")])
    with pytest.raises(skiff.Error, match=r"variable 'z' is not assigned before this loop.*"
                                          r"its shape \[-1, 2\] is known only when the program "
                                          r"runs"):
        g(skiff.ones([3, 2]), skiff.to_tensor(2))


def test_a_variable_no_step_assigns_stays_undefined():
    def f(x, n):
        for _ in range(n):
            x = x + 1.0
            if False:
                never = x
        return never  # noqa: F821

    with pytest.raises(UnboundLocalError, match="'never'"):
        skiff.jit.to_static(f)(_x([1.0]), skiff.to_tensor(2))


TWICE = lambda t: t * 2.0  # noqa: E731 (a lambda made outside converted code)
NEG, POS = (lambda t: -t), (lambda t: t + 0.0 if skiff.mean(t) > 0 else -t)  # noqa: E731


class Scaled(skiff.nn.Layer):
    def __init__(self):
        super().__init__()
        self.act = lambda t: skiff.tanh(t) if skiff.mean(t) > 0 else t * 0.5

    def forward(self, x):
        return self.act(x) + TWICE(x)


@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, -3.0]])
def test_lambdas_convert_wherever_they_are_defined(values):
    def inside(x):
        pick = lambda t: t if skiff.mean(t) > 0 else -t  # noqa: E731
        return pick(x) + TWICE(x) + NEG(x) * POS(x)

    for fn in (inside, Scaled()):
        eager_x, static_x = _x(values), _x(values)
        want = fn(eager_x)
        got = skiff.jit.to_static(fn)(static_x)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(static_x.grad.numpy(), eager_x.grad.numpy(), rtol=1e-6)


def test_a_for_over_a_list_that_becomes_a_tensor_loop_reads_it_as_a_tensor_array():
    def f(x):
        s = x
        for t in [x, x * 2.0, skiff.to_tensor(np.array([3.0, 3.0], np.float32))]:
            if skiff.mean(s) > 2.5:
                break
            s = s + t
        return s

    def mixed(x):
        for t in [x, 2.0]:
            if skiff.mean(x) > 0:
                break
            x = x + t
        return x

    for values in ([1.0, 0.5], [3.0, 4.0], [0.1, 0.1]):
        eager_x, static_x = _x(values), _x(values)
        want, got = f(eager_x), skiff.jit.to_static(f)(static_x)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(static_x.grad.numpy(), eager_x.grad.numpy(), rtol=1e-6)
    with pytest.raises(skiff.Error, match=r"test_jit_loop_learned_values.py:\d+: this `for` loop "
                                          r"over a list became a tensor loop.*holds a Tensor "
                                          r"\(float32\), the float 2.0"):
        skiff.jit.to_static(mixed)(_x([1.0]))


def test_returns_of_tuples_inside_loops():
    """`return a, b` inside loops: in the `else` of an `if` on a Tensor (the `if` branch
    is traced again with zeros of the returned structure), and first assigned in a loop
    on a Tensor."""
    def in_else(x):
        i = 0
        while i < 5:
            if skiff.sum(x) < 6.0:
                x = x + 1.0
            else:
                return x, x * 2.0
            i += 1
        return x, x

    def in_tensor_loop(x, n):
        for i in range(n):
            y = x * (i + 1.0)
            if skiff.sum(y) > 4.0:
                return y, i
        return y * 2.0, n

    cases = [(in_else, lambda: (_x([1.0, 2.0]),)), (in_else, lambda: (_x([-9.0, 1.0]),)),
             (in_tensor_loop, lambda: (_x([1.0, 0.5]), skiff.to_tensor(5))),
             (in_tensor_loop, lambda: (_x([0.1, 0.1]), skiff.to_tensor(3)))]
    for fn, args in cases:
        eager_args, static_args = args(), args()
        want, got = fn(*eager_args), skiff.jit.to_static(fn)(*static_args)
        for w, g in zip(want, got):
            np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                       np.asarray(w.numpy() if hasattr(w, "numpy") else w))
        want[0].sum().backward()
        got[0].sum().backward()
        np.testing.assert_allclose(static_args[0].grad.numpy(), eager_args[0].grad.numpy())
