"""Running programs: an MLP's forward and backward against PyTorch, feeds checked
against the declarations (errors name the variable and the user's line), numpy
sharing, prepared-program reuse, scopes."""
import inspect

import numpy as np
import pytest
import torch

import skiff


def _mlp(static, hidden=5):
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [None, 1], "int64")
    from skiff.framework.param import ParamAttr as attr
    h = static.nn.fc(x, hidden, weight_attr=attr(name="w0"), bias_attr=attr(name="b0"),
                     activation="relu")
    logits = static.nn.fc(h, 3, weight_attr=attr(name="w1"), bias_attr=attr(name="b1"))
    loss = skiff.nn.functional.cross_entropy(logits, label)
    return x, label, logits, loss


def test_mlp_forward_and_backward_match_torch(static):
    x, label, logits, loss = _mlp(static)
    params_grads = static.append_backward(loss)
    assert sorted(p.name for p, _ in params_grads) == ["b0", "b1", "w0", "w1"]
    assert all(g.name == p.name + "@GRAD" for p, g in params_grads)
    exe = static.Executor(skiff.CPUPlace())
    exe.run(static.default_startup_program())
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((6, 4)).astype(np.float32)
    lv = rng.integers(0, 3, (6, 1)).astype(np.int64)
    fetched = exe.run(feed={"x": xv, "label": lv},
                      fetch_list=[loss, logits] + [g for _, g in params_grads])
    scope = static.global_scope()
    values = {p.name: torch.tensor(np.array(scope.find_var(p.name).get_tensor()),
                                   requires_grad=True) for p, _ in params_grads}
    w0, b0, w1, b1 = (values[n] for n in ("w0", "b0", "w1", "b1"))
    ref_logits = torch.relu(torch.tensor(xv) @ w0 + b0) @ w1 + b1
    ref_loss = torch.nn.functional.cross_entropy(ref_logits, torch.tensor(lv[:, 0]))
    ref_loss.backward()
    np.testing.assert_allclose(fetched[0], ref_loss.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(fetched[1], ref_logits.detach().numpy(), rtol=1e-5, atol=1e-6)
    for (p, _), g in zip(params_grads, fetched[2:]):
        np.testing.assert_allclose(g, values[p.name].grad.numpy(), rtol=1e-4, atol=1e-6)


def test_training_with_sgd_minimize_lowers_the_loss(static):
    x, label, logits, loss = _mlp(static, hidden=8)
    skiff.optimizer.SGD(learning_rate=0.5).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((32, 4)).astype(np.float32)
    lv = (xv[:, :1] > 0).astype(np.int64) + (xv[:, 1:2] > 0).astype(np.int64)
    losses = [float(exe.run(feed={"x": xv, "label": lv}, fetch_list=[loss])[0])
              for _ in range(60)]
    assert losses[-1] < 0.6 * losses[0]


def _line():
    return inspect.currentframe().f_back.f_lineno


def test_feed_errors_name_the_variable_and_the_users_lines(static):
    data_line = _line() + 1
    x = static.data("x", [None, 4], "float32")
    y = skiff.exp(x)
    exe = static.Executor()
    run_line = _line() + 2
    with pytest.raises(skiff.Error) as e:
        exe.run(feed={"x": np.ones((3, 5), np.float32)}, fetch_list=[y])
    msg = str(e.value)
    assert "feed 'x'" in msg and "float32[-1, 4]" in msg and "float32[3, 5]" in msg
    assert f"{__file__}:{data_line}" in msg and f"{__file__}:{run_line}" in msg
    with pytest.raises(skiff.Error, match=r"the program declares float32\[-1, 4\], got float64"):
        exe.run(feed={"x": np.ones((3, 4))}, fetch_list=[y])
    with pytest.raises(skiff.Error, match="feed 'z'.*declares no such variable.*its data: x"):
        exe.run(feed={"z": np.ones((3, 4), np.float32)}, fetch_list=[y])
    # Lists are converted to the declared dtype.
    got, = exe.run(feed={"x": [[0.0, 1.0, 2.0, 3.0]]}, fetch_list=[y])
    np.testing.assert_allclose(got, np.exp([[0.0, 1.0, 2.0, 3.0]]), rtol=1e-6)


def test_run_time_errors_name_the_op_and_the_users_line(static):
    a = static.data("a", [None, 3])
    b = static.data("b", [None, 3])
    line = _line() + 1
    c = a + b
    exe = static.Executor()
    with pytest.raises(skiff.Error) as e:
        exe.run(feed={"a": np.ones((2, 3), np.float32), "b": np.ones((4, 3), np.float32)},
                fetch_list=[c])
    assert "elementwise_add" in str(e.value) and f"{__file__}:{line}" in str(e.value)


def test_feeds_and_fetches_share_memory(static):
    x = static.data("x", [2, 3])
    y = skiff.scale(x, 2.0)
    exe = static.Executor()
    arr = np.ones((2, 3), np.float32)
    out1, = exe.run(feed={"x": arr}, fetch_list=[y])
    arr[:] = 5  # the array was fed without a copy, but the result is a new buffer
    np.testing.assert_allclose(out1, 2.0)
    out2, = exe.run(feed={"x": arr}, fetch_list=[y])
    np.testing.assert_allclose(out2, 10.0)
    np.testing.assert_allclose(out1, 2.0)  # a fetched array stays valid after later runs
    fetched_x, = exe.run(feed={"x": arr}, fetch_list=[x])
    assert np.shares_memory(fetched_x, arr)
    t, = exe.run(feed={"x": arr}, fetch_list=[y], return_numpy=False)
    assert isinstance(t, skiff.Tensor) and t.shape == [2, 3]


def test_prepared_programs_are_reused_until_the_program_changes(static):
    x = static.data("x", [2])
    y = skiff.exp(x)
    exe = static.Executor()
    feed = {"x": np.zeros(2, np.float32)}
    for _ in range(3):
        exe.run(feed=feed, fetch_list=[y])
    assert exe._exe.num_cached == 1
    exe.run(feed=feed, fetch_list=[x, y])
    assert exe._exe.num_cached == 2
    z = y + 1  # an edit: the next run prepares the new program
    got = exe.run(feed=feed, fetch_list=[z])
    np.testing.assert_allclose(got[0], 2.0)
    assert exe._exe.num_cached == 3


def test_scopes_hold_parameters(static):
    w = static.create_parameter([2], "float32",
                                default_initializer=skiff.nn.initializer.Constant(3.0))
    x = static.data("x", [2])
    y = x * w
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), 3.0)
    scope.find_var(w.name).get_tensor().set(np.array([1.0, -1.0], np.float32), skiff.CPUPlace())
    got, = exe.run(feed={"x": np.full(2, 2.0, np.float32)}, fetch_list=[y])
    np.testing.assert_allclose(got, [2.0, -2.0])
    other = static.Scope()
    with static.scope_guard(other):
        assert static.global_scope() is other
        with pytest.raises(skiff.Error, match="holds no value|no value"):
            exe.run(feed={"x": np.full(2, 2.0, np.float32)}, fetch_list=[y])
    fetched_w, = exe.run(feed={"x": np.zeros(2, np.float32)}, fetch_list=[w])
    fetched_w[:] = 7  # a fetched persistable is a copy: the parameter is untouched
    np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), [1.0, -1.0])
