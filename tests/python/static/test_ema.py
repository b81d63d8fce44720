"""paddle.static.ExponentialMovingAverage (skiff/static/ema.py): update, apply and restore
against the formula, thres_steps, and errors."""
import numpy as np
import pytest

import skiff


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
