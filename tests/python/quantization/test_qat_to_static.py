"""Quanters under skiff.jit.to_static and in static programs: a QAT-quantized CNN (Conv2D +
ReLU + Linear) and MLP converted with to_static train as they do eagerly (the same losses
and quanter thresholds after Adam steps from the same seed and data) and keep their
thresholds in eval; convert() after to_static training gives the eager run's int8 weights
and scales; a static program updates the quanters' buffers on each run; a quanter that saw
no data still fails clearly."""
import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.quantization import QAT, QuantConfig
from skiff.quantization.base import BaseQuanter
from skiff.quantization.layers import QuantizedConv2D
from skiff.quantization.quanters import (FakeQuanterChannelWiseAbsMaxObserver,
                                         FakeQuanterWithAbsMaxObserver)


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 6 * 6, 3)

    def forward(self, x):
        return self.fc(skiff.flatten(F.relu(self.conv(x)), 1))


def mlp():
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))


MODELS = {"cnn": (CNN, [8, 1, 6, 6]), "mlp": (mlp, [8, 12])}


def qat():
    return QAT(QuantConfig(activation=FakeQuanterWithAbsMaxObserver(moving_rate=0.9),
                           weight=FakeQuanterChannelWiseAbsMaxObserver()))


def quantized(kind, static):
    """The QAT-quantized model (seed 0), converted with to_static when ``static``."""
    skiff.seed(0)
    model = qat().quantize(MODELS[kind][0]())
    return skiff.jit.to_static(model) if static else model


def batches(kind, steps=4):
    """Batches whose magnitude grows, so the moving averages move."""
    rng = np.random.default_rng(1)
    shape = MODELS[kind][1]
    return [(rng.standard_normal(shape).astype(np.float32) * (1 + step),
             rng.integers(0, 3, shape[0])) for step in range(steps)]


def train(model, data):
    """Adam steps on ``data``; the losses."""
    opt = skiff.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    model.train()
    losses = []
    for x, y in data:
        loss = F.cross_entropy(model(skiff.to_tensor(x)), skiff.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def thresholds(model):
    return {name: layer.thresholds() for name, layer in model.named_sublayers()
            if isinstance(layer, BaseQuanter)}


def assert_same(got, want):
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("kind", ["cnn", "mlp"])
def test_qat_to_static_trains_as_eager(kind):
    eager, static = quantized(kind, False), quantized(kind, True)
    data = batches(kind)
    np.testing.assert_allclose(train(static, data), train(eager, data), rtol=1e-5)
    assert len(static.forward.program_cache) == 1  # it ran as a program
    trained = thresholds(eager)
    assert len(trained) == 4
    assert_same(thresholds(static), trained)
    x = skiff.to_tensor(data[0][0] * 10)  # beyond the thresholds: eval must not move them
    eager.eval()
    static.eval()
    np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
    assert len(static.forward.program_cache) == 2
    kept = thresholds(static)
    assert_same(kept, thresholds(eager))
    # the activations' thresholds are kept; the weights' follow the last Adam step
    assert_same({k: v for k, v in kept.items() if "activation" in k},
                {k: v for k, v in trained.items() if "activation" in k})


@pytest.mark.parametrize("kind", ["cnn", "mlp"])
def test_qat_convert_after_to_static_training(kind):
    eager, static = quantized(kind, False), quantized(kind, True)
    data = batches(kind)
    train(eager, data)
    train(static, data)
    want, got = qat().convert(eager), qat().convert(static)
    assert (kind == "cnn") == isinstance(got.sublayers()[0], QuantizedConv2D)
    got_state, want_state = got.state_dict(), want.state_dict()
    assert got_state.keys() == want_state.keys()
    for key, w in want_state.items():
        g = got_state[key]
        if g.dtype == skiff.int8:
            np.testing.assert_array_equal(g.numpy(), w.numpy())
        else:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-7)
    x = skiff.to_tensor(data[1][0])
    np.testing.assert_allclose(got(x).numpy(), want(x).numpy(), rtol=1e-5, atol=1e-5)


def test_quanter_buffers_update_in_a_static_program():
    rate, data = 0.9, batches("mlp", steps=3)
    skiff.enable_static()
    try:
        main, startup = skiff.static.Program(), skiff.static.Program()
        with skiff.static.program_guard(main, startup):
            x = skiff.static.data("x", [8, 12])
            y = skiff.static.data("y", [8], "int64")
            model = qat().quantize(mlp(), inplace=True)
            loss = F.cross_entropy(model(x), y)
            skiff.optimizer.Adam(learning_rate=0.01).minimize(loss)
            first = model[0].activation_quanter
            exe = skiff.static.Executor()
            exe.run(startup)
            state = accum = 0.0
            for xv, yv in data:
                got = exe.run(main, feed={"x": xv, "y": yv},
                              fetch_list=[first._state, first._accum])
                state, accum = rate * state + 1, rate * accum + np.abs(xv).max()
                np.testing.assert_allclose([g[0] for g in got], [state, accum], rtol=1e-6)
    finally:
        skiff.disable_static()


def test_quanter_without_data_fails_under_to_static():
    model = quantized("mlp", True)
    with pytest.raises(RuntimeError, match="no data observed yet"):
        qat().convert(model)
    model.eval()
    with pytest.raises(RuntimeError, match="calibrated on no data"):
        model(skiff.to_tensor(batches("mlp")[0][0]))
