"""append_backward and gradients against eager autograd on the same computation."""
import numpy as np
import pytest

import skiff


def _f(x, w, b):
    return skiff.sum(skiff.tanh(skiff.matmul(x, w) + b) ** 2)


def test_append_backward_matches_eager(static):
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((3, 4))
    wv = rng.standard_normal((4, 2))
    bv = rng.standard_normal(2)
    x = static.data("x", [None, 4], "float64")
    w = static.create_parameter([4, 2], "float64", name="w")
    b = static.create_parameter([2], "float64", name="b")
    loss = _f(x, w, b)
    pairs = static.append_backward(loss, parameter_list=[w, "b"])
    assert [(p.name, g.name) for p, g in pairs] == [("w", "w@GRAD"), ("b", "b@GRAD")]
    exe = static.Executor()
    scope = static.global_scope()
    scope.set("w", wv)
    scope.set("b", bv)
    got = exe.run(feed={"x": xv}, fetch_list=[loss, pairs[0][1], pairs[1][1]])

    skiff.disable_static()
    try:
        ex = skiff.to_tensor(xv)
        ew = skiff.to_tensor(wv, stop_gradient=False)
        eb = skiff.to_tensor(bv, stop_gradient=False)
        eloss = _f(ex, ew, eb)
        eloss.backward()
    finally:
        skiff.enable_static()
    np.testing.assert_allclose(got[0], eloss.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[1], ew.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[2], eb.grad.numpy(), rtol=1e-12)


def test_no_grad_set_and_default_parameters(static):
    x = static.data("x", [2], "float64")
    w = static.create_parameter([2], "float64", name="w")
    v = static.create_parameter([2], "float64", name="v")
    frozen = static.create_parameter([2], "float64", name="frozen",
                                     attr=skiff.framework.param.ParamAttr(trainable=False))
    loss = skiff.sum(x * w * v * frozen)
    pairs = static.append_backward(loss, no_grad_set={"v"})
    assert [p.name for p, _ in pairs] == ["w"]


def test_gradients_with_several_targets_and_target_gradients(static):
    rng = np.random.default_rng(6)
    xv, gv = rng.standard_normal(3), rng.standard_normal(3)
    x = static.data("x", [3], "float64")
    x.stop_gradient = False
    g = static.data("g", [3], "float64")
    y1 = skiff.sin(x) * x
    y2 = skiff.exp(x)
    dx_single, = static.gradients(y1, x)
    dx_weighted, = static.gradients([y1, y2], [x], target_gradients=[g, None])
    unused = static.data("u", [3], "float64")
    none_grad = static.gradients(y2, [x, unused])[1]
    assert none_grad is None
    got = static.Executor().run(feed={"x": xv, "g": gv}, fetch_list=[dx_single, dx_weighted])
    d1 = np.cos(xv) * xv + np.sin(xv)
    np.testing.assert_allclose(got[0], d1, rtol=1e-12)
    np.testing.assert_allclose(got[1], gv * d1 + np.exp(xv), rtol=1e-12)


def test_backward_errors(static):
    x = static.data("x", [2])
    with pytest.raises(TypeError, match="must be a static Variable"):
        static.append_backward(skiff.to_tensor([1.0]))
    with pytest.raises(skiff.Error, match="only floating targets"):
        static.gradients(skiff.cast(x, "int64"), [x])
