"""paddle.static extras: name_scope, accuracy and auc (against PaddlePaddle's metric),
device_guard, cuda_places / xpu_places, ExponentialMovingAverage, save_to_file /
load_from_file, serialize / deserialize_persistables, load / set_program_state."""
import numpy as np
import pytest

import skiff

rng = np.random.default_rng(5)


def _fc_program(st):
    x = st.data("x", [None, 3], "float32")
    y = st.nn.fc(x, 2)
    return x, y


def test_name_scope_records_paths_like_paddle(static):
    st = static
    x = st.data("x", [2, 3], "float32")
    with st.name_scope("s1"):
        a = x + 1
        with st.name_scope("s2"):
            b = a * 2
    with st.name_scope("s1"):
        c = b - 1
    d = c + 1
    ops = st.default_main_program().global_block().ops
    assert [op.attr("op_namescope") for op in ops] == ["/s1/", "/s1/s2/", "/s1_1/", "/"]
    assert ops[0].has_attr("op_namescope") and "op_namescope" in ops[0].all_attrs()
    clone = st.default_main_program().clone()
    assert clone.global_block().ops[1].attr("op_namescope") == "/s1/s2/"
    assert d is not None
    with pytest.raises(TypeError, match="prefix"):
        with st.name_scope(3):
            pass


def test_accuracy_and_auc_match_paddle_metrics(static):
    paddle = pytest.importorskip("paddle")
    st = static
    x = st.data("x", [None, 2], "float32")
    y = st.data("y", [None, 1], "int64")
    auc_all, auc_batch, stats = st.auc(x, y, num_thresholds=200, slide_steps=2)
    acc = st.accuracy(x, y)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    batches = []
    for _ in range(3):
        p = rng.random((16, 1)).astype("float32")
        xx = np.concatenate([1 - p, p], 1)
        yy = (rng.random((16, 1)) < p).astype("int64")
        batches.append((xx, yy))
        got = exe.run(st.default_main_program(), feed={"x": xx, "y": yy},
                      fetch_list=[auc_all, auc_batch, acc])
        whole, recent = paddle.metric.Auc(num_thresholds=200), paddle.metric.Auc(
            num_thresholds=200)
        for bx, by in batches:
            whole.update(bx, by)
        for bx, by in batches[-2:]:
            recent.update(bx, by)
        np.testing.assert_allclose(got[0], whole.accumulate(), rtol=1e-12)
        np.testing.assert_allclose(got[1], recent.accumulate(), rtol=1e-12)
        ref_acc = paddle.metric.accuracy(paddle.to_tensor(xx), paddle.to_tensor(yy)).numpy()
        np.testing.assert_allclose(got[2], ref_acc, rtol=1e-6)
    assert len(stats) == 4
    with pytest.raises(ValueError, match="curve"):
        st.auc(x, y, curve="PR")
    with pytest.raises(ValueError, match="input"):
        st.auc(st.data("z", [None, 3], "float32"), y)


def test_auc_needs_static_mode():
    import skiff.static as st
    with pytest.raises(skiff.Error, match="enable_static"):
        st.auc(skiff.to_tensor(np.zeros((2, 2), "float32")),
               skiff.to_tensor(np.zeros((2, 1), "int64")))


def test_device_guard_and_places(static):
    st = static
    x = st.data("x", [2], "float32")
    with st.device_guard("cpu"):
        y = x * 2
    with st.device_guard(None):
        y = y + 1
    out, = st.Executor().run(feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(out, [3, 3])
    with pytest.raises(skiff.Error, match="CPU only"):
        with st.device_guard("gpu:0"):
            pass
    with pytest.raises(ValueError, match="device"):
        with st.device_guard("tpu"):
            pass
    with pytest.raises(AssertionError, match="CUDA"):
        st.cuda_places()
    with pytest.raises(AssertionError, match="XPU"):
        st.xpu_places([0])


def test_exponential_moving_average_apply_and_restore(static):
    st = static
    x = st.data("x", [4, 3], "float32")
    y = st.nn.fc(x, 2, weight_attr=skiff.ParamAttr(
        initializer=skiff.nn.initializer.Constant(0.5)), bias_attr=False)
    loss = skiff.mean(y * y)
    skiff.optimizer.SGD(0.1).minimize(loss)
    ema = st.ExponentialMovingAverage(0.9)
    ema.update()
    exe = st.Executor()
    exe.run(st.default_startup_program())
    name = st.default_main_program().all_parameters()[0].name
    xs = np.arange(12, dtype="float32").reshape(4, 3) / 10
    trained, avg = [], 0.0
    for _ in range(3):
        exe.run(st.default_main_program(), feed={"x": xs})
        trained.append(np.array(st.global_scope().find_var(name).get_tensor()))
        avg = 0.9 * avg + 0.1 * trained[-1]
    value = lambda: np.array(st.global_scope().find_var(name).get_tensor())  # noqa: E731
    with ema.apply(exe):
        np.testing.assert_allclose(value(), avg / (1 - 0.9 ** 3), rtol=1e-5)
    np.testing.assert_array_equal(value(), trained[-1])
    with ema.apply(exe, need_restore=False):
        pass
    np.testing.assert_allclose(value(), avg / (1 - 0.9 ** 3), rtol=1e-5)
    ema.restore(exe)
    np.testing.assert_array_equal(value(), trained[-1])


def test_ema_thres_steps_and_errors(static):
    st = static
    x = st.data("x", [2, 3], "float32")
    st.nn.fc(x, 1, bias_attr=False)
    step = st.create_global_var([1], 0, "float32", persistable=True, name="step")
    ema = st.ExponentialMovingAverage(0.999, thres_steps=step)
    ema.update()
    skiff.framework.core.apply("increment", step, attrs={"step": 1.0}, out=[step])
    exe = st.Executor()
    exe.run(st.default_startup_program())
    name = st.default_main_program().all_parameters()[0].name
    w = np.array(st.global_scope().find_var(name).get_tensor())
    exe.run(st.default_main_program(), feed={"x": np.zeros((2, 3), "float32")})
    exe.run(st.default_main_program(), feed={"x": np.zeros((2, 3), "float32")})
    d1, d2 = min(0.999, 1 / 10), min(0.999, 2 / 11)
    avg = (1 - d1) * w * d2 + (1 - d2) * w
    with ema.apply(exe):
        np.testing.assert_allclose(np.array(st.global_scope().find_var(name).get_tensor()),
                                   avg / (1 - d1 * d2), rtol=1e-5)
    with pytest.raises(ValueError, match="decay"):
        st.ExponentialMovingAverage(1.5)
    skiff.disable_static()
    try:
        with pytest.raises(skiff.Error, match="static mode"):
            st.ExponentialMovingAverage()
    finally:
        skiff.enable_static()


def test_bytes_files_and_persistables_round_trip(static, tmp_path):
    st = static
    x, y = _fc_program(st)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    feed = {"x": rng.standard_normal((2, 3)).astype("float32")}
    before, = exe.run(feed=feed, fetch_list=[y])
    data = st.serialize_persistables([x], [y], exe)
    program_bytes = st.serialize_program([x], [y])
    st.save_to_file(str(tmp_path / "m.params"), data)
    st.save_to_file(str(tmp_path / "sub" / "m.model"), program_bytes)
    assert st.load_from_file(str(tmp_path / "m.params")) == data
    program = st.deserialize_program(st.load_from_file(str(tmp_path / "sub" / "m.model")))
    with st.scope_guard(st.Scope()):
        st.deserialize_persistables(program, st.load_from_file(str(tmp_path / "m.params")),
                                    exe)
        after, = exe.run(program, feed=feed, fetch_list=[program.desc.fetch_names[0]])
    np.testing.assert_array_equal(before, after)
    with pytest.raises(ValueError, match="content"):
        st.save_to_file(str(tmp_path / "bad"), "text")
    with pytest.raises(ValueError, match="path"):
        st.load_from_file(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="data"):
        st.deserialize_persistables(program, "nope", exe)


def test_load_and_set_program_state(static, tmp_path):
    st = static
    x, y = _fc_program(st)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    main = st.default_main_program()
    prefix = str(tmp_path / "ckpt" / "model")
    st.save(main, prefix)
    state = st.load_program_state(prefix)
    params = main.all_parameters()
    assert sorted(state) == sorted(p.name for p in params)
    for p in params:
        np.testing.assert_array_equal(state[p.name],
                                      np.array(st.global_scope().find_var(p.name).get_tensor()))
    only = st.load_program_state(prefix + ".skparams", var_list=[params[0]])
    assert list(only) == [params[0].name]
    feed = {"x": np.ones((1, 3), "float32")}
    before, = exe.run(main, feed=feed, fetch_list=[y])
    with st.scope_guard(st.Scope()):
        st.set_program_state(main, state)
        after, = exe.run(main, feed=feed, fetch_list=[y])
        np.testing.assert_array_equal(before, after)
        bad = {params[0].name: np.zeros((7, 7), "float32")}
        with pytest.raises(ValueError, match=params[0].name):
            st.set_program_state(main, bad)
    with pytest.raises(ValueError, match="model_path"):
        st.load_program_state(str(tmp_path / "nothing"))
