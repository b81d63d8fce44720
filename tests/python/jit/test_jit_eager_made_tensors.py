"""Tensors a converted function makes eagerly (to_tensor, zeros, full, assign, arange)
carried by a loop on a Tensor or merged by an `if` on a Tensor become program variables
holding their values: the converted function gives the eager values and gradients. Shape
lists holding x.shape[0] of an unknown batch build (reshape, zeros, full)."""
import numpy as np
import pytest

import skiff


def counted(x, n):
    """The Paddle user's loop: a Tensor counter from to_tensor, an accumulator from
    zeros_like, an `if` on a Tensor inside."""
    s = skiff.zeros_like(x)
    i = skiff.to_tensor(0)
    while i < n:
        if skiff.mean(s) > 2.0:
            s = s - x
        else:
            s = s + x * 2
        i = i + 1
    return s


def made_in_branch(x):
    if skiff.mean(x) > 0:
        y = skiff.to_tensor(np.array([1.0, 1.0], np.float32))
    else:
        y = x * 2
    return y + skiff.full([2], 3.0)


def carried_kinds(x, n):
    total = skiff.full([2], 0.5)
    step = skiff.assign(np.array([1.0, 2.0], np.float32))
    k = skiff.zeros([1], dtype="int64")
    while k < n:
        total = total + x * step
        step = step * 0.5
        k = k + skiff.ones([1], dtype="int64")
    return total + skiff.arange(2).astype("float32")


def _x(values):
    x = skiff.to_tensor(np.array(values, np.float32))
    x.stop_gradient = False
    return x


@pytest.mark.parametrize("fn, args", [
    (counted, lambda: (_x([1.0, 2.0]), skiff.to_tensor(5))),
    (counted, lambda: (_x([-0.5, 3.0]), skiff.to_tensor(7))),
    (made_in_branch, lambda: (_x([1.0, 2.0]),)),
    (made_in_branch, lambda: (_x([-1.0, -2.0]),)),
    (carried_kinds, lambda: (_x([1.0, -2.0]), skiff.to_tensor([3]))),
], ids=["counted-5", "counted-7", "branch-true", "branch-false", "carried-kinds"])
def test_converted_values_and_gradients_equal_eager(fn, args):
    eager_args, static_args = args(), args()
    want = fn(*eager_args)
    got = skiff.jit.to_static(fn)(*static_args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    if not want.stop_gradient:
        want.sum().backward()
    if not got.stop_gradient:
        got.sum().backward()
    want_grad, got_grad = eager_args[0].grad, static_args[0].grad
    if want_grad is None:  # (the branch taken made its value from constants)
        assert got_grad is None or not np.any(got_grad.numpy())
    else:
        np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-6)


def test_branches_of_different_dtypes_are_named():
    def f(x):
        if skiff.mean(x) > 0:
            y = skiff.to_tensor([1, 2])  # int64
        else:
            y = x
        return y

    with pytest.raises(skiff.Error, match="'y' is int64 in the true branch and float32 in the "
                                          "false branch"):
        skiff.jit.to_static(f)(_x([1.0, 2.0]))


def test_shapes_holding_a_dim_of_an_unknown_batch():
    """x.shape[0] of an unknown batch in reshape's and zeros' shape lists: reshape copies
    x's own dim (or infers one), zeros broadcasts to the batch of the run."""
    from skiff.static import InputSpec

    def f(x):
        flat = skiff.reshape(x, [x.shape[0], -1])
        z = skiff.zeros([x.shape[0], 3]) + skiff.full([2, x.shape[0], 1], 2.0).sum(0)
        return flat.sum(axis=1), z

    g = skiff.jit.to_static(f, input_spec=[InputSpec([None, 2, 3], "float32")])
    for batch in (4, 1):
        x = skiff.to_tensor(np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3))
        for got, want in zip(g(x), f(x)):
            np.testing.assert_allclose(got.numpy(), want.numpy())


def test_a_len_known_only_at_run_time_acts_as_the_python_int():
    """len() of an unknown batch and of a list grown in a loop on a Tensor are int64 Tensors
    in converted code; with a float Tensor they promote as the eager Python int does."""
    from skiff.static import InputSpec

    def f(x):
        return x * len(x) + x.shape[0]

    g = skiff.jit.to_static(f, input_spec=[InputSpec([None, 2], "float32")])
    x = skiff.to_tensor(np.ones([3, 2], np.float32))
    np.testing.assert_allclose(g(x).numpy(), f(x).numpy())
    assert g(x).dtype == skiff.float32


def test_ndarrays_merged_by_an_if_or_changed_by_a_loop_become_program_variables():
    """Numeric ndarrays: merged by an `if` on a Tensor (equal ones stay arrays), or
    changed by a loop on a Tensor, they become program variables of their dtype;
    skiff.to_tensor of such a variable is an assign of it (as Paddle's)."""
    def branch(x):
        if skiff.mean(x) > 0:
            w = np.ones(2, np.float32)
        else:
            w = np.full(2, 2.0, np.float32)
        same = np.arange(2, dtype=np.float32) if skiff.mean(x) > 5 else \
            np.arange(2.0, dtype=np.float32)
        return x * skiff.to_tensor(w) + skiff.to_tensor(same, "float32")

    def loop(x, n):
        w = np.ones(2, np.float32)
        for _ in range(n):
            x = x * skiff.to_tensor(w)
            w = w * 2 + 1
        return x

    cases = [(branch, lambda: (_x([1.0, 2.0]),)), (branch, lambda: (_x([-1.0, -2.0]),)),
             (loop, lambda: (_x([1.0, -2.0]), skiff.to_tensor(3)))]
    for fn, args in cases:
        eager_args, static_args = args(), args()
        want, got = fn(*eager_args), skiff.jit.to_static(fn)(*static_args)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        want.sum().backward()
        got.sum().backward()
        np.testing.assert_allclose(static_args[0].grad.numpy(), eager_args[0].grad.numpy())

    def other_dtypes(x):
        w = np.ones(2, np.float32) if skiff.mean(x) > 0 else np.ones(2)
        return x * skiff.to_tensor(w, "float32")

    with pytest.raises(skiff.Error, match=r"the value of this conditional expression is an "
                                          r"ndarray \(float32\[2\]\) in the true "
                                          r"branch and an ndarray \(float64\[2\]\) in the false "
                                          r"branch.*same dtype"):
        skiff.jit.to_static(other_dtypes)(_x([1.0, 2.0]))
