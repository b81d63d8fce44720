"""static.nn.static_pylayer: forward values are forward_fn's, the gradient through it is
backward_fn's (nonlinear ones too), beside ordinary paths, through chains of pylayers and
in optimizer.minimize. Each case builds the same program in Paddle 3.3.1 and in skiff."""
import numpy as np
import paddle as real_paddle
import pytest

import skiff

X = np.arange(6, dtype="float32").reshape(2, 3) / 10
W = np.full((2, 3), 2.0, "float32")


def _two_outputs(paddle):
    x = paddle.static.data("x", [2, 3], "float32")
    w = paddle.static.data("w", [2, 3], "float32")
    x.stop_gradient = w.stop_gradient = False
    y1, y2 = paddle.static.nn.static_pylayer(
        lambda a, b: (a * b, a + b), [x, w], lambda d1, d2: (d1 * 10 + d2, d2 * 100))
    loss = (y1 * 2).sum() + (y2 * x).sum()  # x also reaches loss directly
    return [y1, y2] + paddle.static.gradients([loss], [x, w])


def _chain(paddle):
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    u = paddle.static.nn.static_pylayer(lambda a: paddle.exp(a), [x],
                                        lambda d: 2 * paddle.exp(d))
    v = paddle.static.nn.static_pylayer(lambda a: a * a, [u], lambda d: d + 1)
    return [v] + paddle.static.gradients([(v * 2).sum() + u.sum()], [x, u])


def _unused_output(paddle):
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    y, z = paddle.static.nn.static_pylayer(lambda a: (a * 3, a - 1), [x],
                                           lambda dy, dz: dy * 5 + dz)
    return paddle.static.gradients([y.sum()], [x])


def _run(paddle, build):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            fetch = build(paddle)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        feed = {"x": X, "w": W} if build is _two_outputs else {"x": X}
        return exe.run(main, feed=feed, fetch_list=fetch)
    finally:
        paddle.disable_static()


@pytest.mark.parametrize("build", [_two_outputs, _chain, _unused_output])
def test_gradients_are_backward_fns(build):
    ours, theirs = _run(skiff, build), _run(real_paddle, build)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def _minimize(paddle):
    x = paddle.static.data("x", [2, 3], "float32")
    w = paddle.static.create_parameter(
        [2, 3], "float32", "pl_w", default_initializer=paddle.nn.initializer.Constant(0.5))
    y = paddle.static.nn.static_pylayer(lambda a, b: a * b, [x, w],
                                        lambda d: (d, d * paddle.exp(d)))
    loss = (y * 3).sum() + (w * w).sum()
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return [w]


def test_minimize_steps_with_backward_fn():
    ours, theirs = _run(skiff, _minimize), _run(real_paddle, _minimize)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)


def test_refusals():
    skiff.enable_static()
    try:
        with skiff.static.program_guard(skiff.static.Program()):
            x = skiff.static.data("x", [2, 3], "float32")
            x.stop_gradient = False
            with pytest.raises(ValueError, match="stop_gradient"):
                skiff.static.nn.static_pylayer(lambda a: a * 2, [x])
            with pytest.raises(TypeError, match="list of Variables"):
                skiff.static.nn.static_pylayer(lambda a: a * 2, x, lambda d: d)
            with pytest.raises(TypeError, match="return Variables"):
                skiff.static.nn.static_pylayer(lambda a: 3, [x], lambda d: d)
            y = skiff.static.nn.static_pylayer(lambda a: a * 2, [x], lambda d: (d, d))
            with pytest.raises(ValueError, match="2 gradients for 1 inputs"):
                skiff.static.gradients([y.sum()], [x])
    finally:
        skiff.disable_static()
    with pytest.raises(skiff.Error, match="PyLayer"):
        skiff.static.nn.static_pylayer(lambda a: a, [skiff.ones([2])], lambda d: d)
