"""cond, while_loop, switch_case and case in programs: values for each path, gradients
through them against PyTorch and finite differences, eager-mode behaviour, errors."""
import numpy as np
import pytest
import torch

import skiff


def _run(static, feed, fetch):
    return static.Executor().run(feed=feed, fetch_list=fetch)


def test_cond_selects_a_branch_at_run_time(static):
    x = static.data("x", [3])
    flag = static.data("flag", [1], "bool")
    a, b = static.nn.cond(flag, lambda: (x * 2.0, x.sum()), lambda: (x - 1.0, x.mean()))
    assert a.shape == [3] and b.shape == []
    xv = np.array([1.0, 2.0, 6.0], np.float32)
    got = _run(static, {"x": xv, "flag": np.array([True])}, [a, b])
    np.testing.assert_allclose(got[0], xv * 2)
    np.testing.assert_allclose(got[1], 9.0)
    got = _run(static, {"x": xv, "flag": np.array([False])}, [a, b])
    np.testing.assert_allclose(got[0], xv - 1)
    np.testing.assert_allclose(got[1], 3.0)
    ops = [op.type for op in static.default_main_program().global_block().ops]
    assert ops.count("conditional_block") == 2 and ops.count("select_input") == 2


def test_cond_returns_nested_structures_and_constants(static):
    x = static.data("x", [2])
    out = static.nn.cond(x.sum() > 0, lambda: {"v": x, "k": [1.0, x * 0.0]},
                         lambda: {"v": -x, "k": [2.0, x * 0.0 + 1.0]})
    assert set(out) == {"k", "v"} and len(out["k"]) == 2
    got = _run(static, {"x": np.array([-1.0, -2.0], np.float32)}, [out["v"], out["k"][0],
                                                                    out["k"][1]])
    np.testing.assert_allclose(got[0], [1.0, 2.0])
    np.testing.assert_allclose(got[1], 2.0)
    np.testing.assert_allclose(got[2], [1.0, 1.0])


def test_gradients_through_cond_match_each_branch(static):
    x = static.data("x", [3], "float64")
    w = static.create_parameter([3], "float64",
                                default_initializer=skiff.nn.initializer.Constant(0.5))
    y = static.nn.cond(x.sum() > 0, lambda: x * w * w, lambda: skiff.sin(x) * w)
    loss = y.sum()
    gx, gw = static.gradients(loss, [x, w])
    exe = static.Executor()
    exe.run(static.default_startup_program())
    for xv in (np.array([1.0, 2.0, -0.5]), np.array([-1.0, 0.3, -2.0])):
        got = exe.run(feed={"x": xv}, fetch_list=[loss, gx, gw])
        tx = torch.tensor(xv, requires_grad=True)
        tw = torch.full((3,), 0.5, dtype=torch.float64, requires_grad=True)
        ref = (tx * tw * tw if xv.sum() > 0 else torch.sin(tx) * tw).sum()
        ref.backward()
        np.testing.assert_allclose(got[0], ref.item(), rtol=1e-12)
        np.testing.assert_allclose(got[1], tx.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(got[2], tw.grad.numpy(), rtol=1e-12)


def test_while_loop_computes_and_differentiates(static):
    x = static.data("x", [2], "float64")
    w = static.create_parameter([2], "float64",
                                default_initializer=skiff.nn.initializer.Constant(1.5))
    n = static.data("n", [1], "int64")
    i = skiff.zeros([1], "int64")
    i_out, s = static.nn.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, s * w + x],
                                    [i, x])
    loss = (s * s).sum()
    gx, gw = static.gradients(loss, [x, w])
    exe = static.Executor()
    exe.run(static.default_startup_program())
    xv = np.array([0.5, -1.0])
    got = exe.run(feed={"x": xv, "n": np.array([3])}, fetch_list=[i_out, s, loss, gx, gw, x])
    tx = torch.tensor(xv, requires_grad=True)
    tw = torch.full((2,), 1.5, dtype=torch.float64, requires_grad=True)
    ts = tx
    for _ in range(3):
        ts = ts * tw + tx
    (ts * ts).sum().backward()
    assert got[0].tolist() == [3]
    np.testing.assert_allclose(got[1], ts.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[3], tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[4], tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[5], xv)  # the loop works on copies of its inputs
    got = exe.run(feed={"x": xv, "n": np.array([0])}, fetch_list=[s, gw])
    np.testing.assert_allclose(got[0], xv)
    np.testing.assert_allclose(got[1], 0.0)


def test_while_loop_reads_all_new_values_before_writing(static):
    a, b = skiff.ones([1], "int64"), skiff.ones([1], "int64")
    k = skiff.zeros([1], "int64")
    out = static.nn.while_loop(lambda k, a, b: k < 8, lambda k, a, b: (k + 1, b, a + b),
                               (k, a, b))
    assert isinstance(out, tuple)
    got = _run(static, {}, list(out))
    assert [int(v[0]) for v in got] == [8, 34, 55]


def test_switch_case_and_case(static):
    index = static.data("index", [1], "int64")
    x = static.data("x", [2])
    y = static.nn.switch_case(index, {1: lambda: x + 1.0, 3: lambda: x * 3.0},
                              default=lambda: x * 0.0)
    z = static.nn.switch_case(index, [lambda: x - 1.0, lambda: x - 2.0])
    c = static.nn.case([(index == 0, lambda: x * 10.0), (index > 2, lambda: x * 20.0)],
                       default=lambda: -x)
    xv = np.array([1.0, 2.0], np.float32)
    expected = {0: (xv * 0, xv - 1, xv * 10), 1: (xv + 1, xv - 2, -xv),
                3: (xv * 3, xv - 2, xv * 20), 7: (xv * 0, xv - 2, xv * 20)}
    for i, (ey, ez, ec) in expected.items():
        got = _run(static, {"index": np.array([i]), "x": xv}, [y, z, c])
        np.testing.assert_allclose(got[0], ey, err_msg=f"index {i}")
        np.testing.assert_allclose(got[1], ez, err_msg=f"index {i}")
        np.testing.assert_allclose(got[2], ec, err_msg=f"index {i}")


def test_control_flow_errors_point_at_the_user(static):
    x = static.data("x", [2])
    with pytest.raises(skiff.Error, match="true_fn returns a tuple of 2 but false_fn returns "
                                          "a variable"):
        static.nn.cond(x.sum() > 0, lambda: (x, x), lambda: x)
    with pytest.raises(skiff.Error, match="must be a bool variable of one element"):
        static.nn.cond(x, lambda: x, lambda: x)
    inner = []
    static.nn.cond(x.sum() > 0, lambda: inner.append(x * 2.0), None)
    with pytest.raises(skiff.Error, match="which block 0 cannot see"):
        inner[0] + 1.0
    with pytest.raises(skiff.Error, match="body returns a list of 1, loop_vars are a list of 2"):
        static.nn.while_loop(lambda a, b: a.sum() < 3, lambda a, b: [a + 1], [x, x])


def test_eager_mode_runs_the_python_branches():
    x = skiff.to_tensor([1.0, 2.0])
    assert skiff.static.nn.cond(x.sum() > 0, lambda: "yes", lambda: "no") == "yes"
    i, s = skiff.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * 2],
                                      [skiff.to_tensor(0), x])
    assert int(i) == 3
    np.testing.assert_allclose(s.numpy(), [8.0, 16.0])
    assert skiff.static.nn.switch_case(skiff.to_tensor(1), [lambda: 10, lambda: 20]) == 20
