"""Programs and parameters on disk: save_inference_model / load_inference_model round
trips (pruned to the forward part, feed and fetch names kept), static.save / load."""
import os

import numpy as np
import pytest

import skiff


def _trained_net(static):
    x = static.data("x", [None, 4])
    label = static.data("label", [None, 1], "int64")
    h = static.nn.fc(x, 6, activation="tanh")
    h = skiff.nn.functional.dropout(h, 0.3)
    logits = static.nn.fc(h, 3)
    test_prog = static.default_main_program().clone(for_test=True)
    loss = skiff.nn.functional.cross_entropy(logits, label)
    skiff.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    rng = np.random.default_rng(3)
    for _ in range(3):
        exe.run(feed={"x": rng.standard_normal((8, 4)).astype(np.float32),
                      "label": rng.integers(0, 3, (8, 1))}, fetch_list=[loss])
    return x, logits, exe, test_prog


def test_inference_model_round_trip(static, tmp_path):
    x, logits, exe, test_prog = _trained_net(static)
    xv = np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32)
    expected, = exe.run(test_prog, feed={"x": xv}, fetch_list=[logits])
    prefix = str(tmp_path / "model" / "mlp")
    static.save_inference_model(prefix, [x], [logits], exe)
    assert os.path.exists(prefix + ".skmodel") and os.path.exists(prefix + ".skparams")

    with static.scope_guard(static.Scope()):
        program, feed_names, fetch_targets = static.load_inference_model(prefix, exe)
        assert feed_names == ["x"] and [v.name for v in fetch_targets] == [logits.name]
        types = [op.type for op in program.global_block().ops]
        assert "adam" not in types and not any(t.endswith("_grad") for t in types)
        assert all(op.attr("is_test") for op in program.global_block().ops
                   if op.type == "dropout")
        got, = exe.run(program, feed={feed_names[0]: xv}, fetch_list=fetch_targets)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    params = {v.name for v in program.list_vars() if v.persistable}
    assert params and all(".w_" in n or ".b_" in n for n in params)  # no optimizer state


def test_inference_model_errors(static, tmp_path):
    x = static.data("x", [2])
    y = static.data("y", [2])
    z = x + y
    with pytest.raises(skiff.Error, match=r"need \['y'\]"):
        static.save_inference_model(str(tmp_path / "m"), [x], [z], static.Executor())
    with pytest.raises(skiff.Error, match="no_such.skmodel"):
        static.load_inference_model(str(tmp_path / "no_such"), static.Executor())


def test_static_save_and_load_restore_every_persistable(static, tmp_path):
    x, logits, exe, _ = _trained_net(static)
    main = static.default_main_program()
    before = {k: v.numpy().copy() for k, v in main.state_dict().items()}
    assert any("moment" in k for k in before) or len(before) > 4
    static.save(main, str(tmp_path / "ckpt"))
    scope = static.global_scope()
    for name in before:
        scope.set(name, np.zeros_like(before[name]))
    static.load(main, str(tmp_path / "ckpt"))
    after = main.state_dict()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name].numpy(), value)
