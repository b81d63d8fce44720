"""to_static on functions whose `if`, `while`, `for`, `break`/`continue`, early
`return` and `and`/`or`/`not` depend on Tensors: the same outputs and gradients as
running the function eagerly, with cond / while ops in the traced program."""
import numpy as np
import pytest

import skiff
from skiff.jit import to_static


def tensor(values, dtype="float64", grad=False):
    t = skiff.to_tensor(np.asarray(values, dtype=dtype))
    t.stop_gradient = not grad
    return t


def op_types(fn):
    """The op types of every block of the last traced program of ``fn``."""
    program = list(fn.program_cache.values())[-1].program
    return {op.type for block in program.blocks for op in block.ops}


def check(fn, *arg_sets, grads=True):
    """Runs ``fn`` eagerly and through to_static on each argument set: equal outputs
    and equal gradients of sum(outputs) with respect to the float inputs."""
    static = to_static(fn)
    for args in arg_sets:
        results = []
        for run in (fn, static):
            inputs = [tensor(a, grad=True) if isinstance(a, np.ndarray) else a for a in args]
            out = run(*inputs)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            got = [o.numpy().copy() if isinstance(o, skiff.Tensor) else o for o in outs]
            g = []
            if grads:
                total = None
                for o in outs:
                    if isinstance(o, skiff.Tensor) and not o.stop_gradient:
                        s = o.sum()
                        total = s if total is None else total + s
                if total is not None:
                    total.backward()
                g = [None if not isinstance(t, skiff.Tensor) or t.grad is None
                     else t.grad.numpy().copy() for t in inputs]
            results.append((got, g))
        (eager_out, eager_grad), (static_out, static_grad) = results
        assert len(eager_out) == len(static_out)
        for e, s in zip(eager_out, static_out):
            np.testing.assert_allclose(s, e, rtol=1e-12, atol=1e-12)
        for e, s in zip(eager_grad, static_grad):
            assert (e is None) == (s is None)
            if e is not None:
                np.testing.assert_allclose(s, e, rtol=1e-12, atol=1e-12)
    return static


POS = np.array([0.5, 1.5, -0.25])
NEG = np.array([-0.5, -1.5, 0.25])


def if_else(x):
    if x.sum() > 0:
        y = x * x
        z = y + 1.0
    else:
        y = -x
        z = 2.0
    return y * z


def test_if_else_on_a_tensor():
    f = check(if_else, (POS,), (NEG,))
    assert {"conditional_block", "select_input"} <= op_types(f)


def test_python_condition_stays_python():
    def f(x, flag):
        if flag:
            x = x * 2.0
        return x + 1.0

    static = check(f, (POS, True), (POS, False))
    assert "conditional_block" not in op_types(static)


def while_on_tensor(x):
    steps = 0
    while x.sum() < 20.0:
        x = x * 2.0 + 1.0
        steps += 1
    return x, steps


def test_while_on_a_tensor():
    f = check(while_on_tensor, (np.array([1.0, 2.0]),), (np.array([30.0, 1.0]),))
    assert "while" in op_types(f)


def for_range_tensor(x, n):
    h = x
    for i in range(n):
        h = skiff.tanh(h) + x * float(i) if False else skiff.tanh(h) + x
    return h


def test_for_range_over_a_tensor_count():
    n = skiff.to_tensor(np.array(4, dtype="int64"))
    check(for_range_tensor, (POS, n), (NEG, n))
    check(for_range_tensor, (POS, 3))


def break_continue(x, limit):
    total = x * 0.0
    for i in range(10):
        if i % 2 == 1:
            continue
        total = total + x
        if total.sum() > limit:
            break
    return total


def test_break_and_continue_on_tensors():
    check(break_continue, (np.array([1.0, 1.0]), 5.0), (np.array([0.1, 0.1]), 100.0))
    f = to_static(break_continue)
    f(tensor([1.0, 2.0]), 5.0)
    assert "while" in op_types(f)


def early_return(x):
    if x.mean() > 0:
        return x * 3.0
    y = x - 1.0
    if y.min() < -1.2:
        return y * y
    return y


def test_early_return_on_tensors():
    check(early_return, (POS,), (np.array([-0.1, -0.05]),), (NEG,))


def logic(x, y):
    if (x.sum() > 0 and y.sum() > 0) or not (x.max() < 1.0):
        return x + y
    return x - y


def test_and_or_not_on_tensors():
    check(logic, (POS, POS), (POS, NEG), (NEG, NEG), (np.array([2.0, -5.0]), np.array([-1.0, -1.0])))


def nested(x):
    k = 0
    while k < 3:
        if x.sum() > 1.0:
            x = x * 0.5
        else:
            j = 0
            while j < 2:
                x = x + 1.0
                j += 1
        k += 1
    return x


def test_nested_control_flow():
    check(nested, (POS,), (NEG,), (np.array([10.0, 1.0]),))


def cumulative(x, n):
    outs = []
    h = x
    for i in range(n):
        h = skiff.tanh(h) * 2.0
        outs.append(h)
    return skiff.stack(outs), skiff.concat(outs)


def test_lists_in_tensor_loops_become_arrays():
    n = skiff.to_tensor(np.array(3, dtype="int64"))
    f = check(cumulative, (POS, n))
    assert {"write_to_array", "tensor_array_to_tensor"} <= op_types(f)


def popped(x, n, k):
    outs = [x]
    for _ in range(n):
        outs.append(outs[-1] * 0.5 + 1.0)
    last = outs.pop()          # from the end
    middle = outs.pop(1)       # by position
    first = outs.pop(k)        # by a Tensor index
    return last + middle * 2.0 + first * 3.0 + skiff.stack(outs).sum(axis=0)


def test_pop_of_a_list_that_became_a_tensor_array():
    n = skiff.to_tensor(np.array(4, dtype="int64"))
    f = check(popped, (POS, n, 0), (NEG, n, 0))
    assert "read_from_array" in op_types(f)
    k = skiff.to_tensor(np.array(1, dtype="int64"))
    g = to_static(popped)
    np.testing.assert_allclose(g(tensor(POS), n, k).numpy(), popped(tensor(POS), n, 1).numpy(),
                               rtol=1e-12)


def test_ifexp_on_a_tensor():
    def f(x):
        return x * 2.0 if x.sum() > 0 else x - 5.0

    check(f, (POS,), (NEG,))


def iterate_rows(x):
    acc = x[0] * 0.0
    for row in x:
        if row.sum() > 0:
            acc = acc + row
        else:
            acc = acc - row * 0.5
    return acc


def test_for_over_a_tensor():
    rows = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, 0.25]])
    check(iterate_rows, (rows,))
    f = to_static(iterate_rows, input_spec=[skiff.static.InputSpec([None, 2], "float64")])
    for n in (1, 3, 5):
        x = np.random.default_rng(n).standard_normal((n, 2))
        np.testing.assert_allclose(f(tensor(x)).numpy(), iterate_rows(tensor(x)).numpy(),
                                   rtol=1e-12)
    assert "while" in op_types(f)


def test_captured_tensors_get_gradients():
    w = tensor([0.5, -2.0], grad=True)

    def f(x):
        if (x * w).sum() > 0:
            return x * w
        return x - w

    out = to_static(f)(tensor([1.0, 1.0]))
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [-1.0, -1.0])  # x - w taken: d/dw = -1


def helper_with_branch(x):
    if x.sum() > 0:
        return x * 2.0
    return x * -3.0


def calls_helper(x):
    y = helper_with_branch(x)
    return to_static(helper_with_branch)(y + 1.0)  # a to_static function inside one


def test_called_functions_are_converted_too():
    static = check(calls_helper, (POS,), (NEG,), (np.array([-0.9, 0.1]),))
    ops = op_types(static)
    assert "conditional_block" in ops and "run_program" not in ops


class Inner(skiff.nn.Layer):
    def forward(self, x):
        if x.mean() > 0:
            x = x * 10.0
        return x


class Outer(skiff.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x) + 1.0


def test_user_sublayers_are_converted():
    layer = Outer()
    static = to_static(Outer())
    for x in (POS, NEG):
        np.testing.assert_allclose(static(tensor(x)).numpy(), layer(tensor(x)).numpy())
    program = list(static.forward.program_cache.values())[0].program
    assert "conditional_block" in {op.type for op in program.global_block().ops}
