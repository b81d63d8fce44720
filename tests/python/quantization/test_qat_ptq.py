"""QAT and PTQ on a small classifier (an MLP and a CNN on synthetic 4-class data): the
quantized model trains, convert() gives int8 weights whose model computes what the
quantized model computes in eval, and the int8 model is about as accurate as the float
one; observers and configs behave as documented; mistakes fail clearly."""
import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.quantization import PTQ, QAT, QuantConfig
from skiff.quantization.layers import QuantedLinear, QuantizedLinear, weight_bytes
from skiff.quantization.observers import (AbsmaxObserver, KLObserver,
                                          MovingAverageAbsmaxObserver,
                                          PerChannelAbsmaxObserver)
from skiff.quantization.quanters import (FakeQuanterChannelWiseAbsMaxObserver,
                                         FakeQuanterWithAbsMaxObserver)


CENTERS = np.random.default_rng(100).standard_normal([4, 16])


def problem(n=512, seed=0):
    """Samples of 4 overlapping Gaussian classes in 16 dims (about 90% separable)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    x = (CENTERS[labels] + rng.standard_normal([n, 16]) * 1.2).astype(np.float32)
    return x, labels.astype(np.int64)


def mlp():
    skiff.seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))


def train(model, x, y, steps=150):
    opt = skiff.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
    for step in range(steps):
        i = slice((step * 32) % len(x), (step * 32) % len(x) + 32)
        F.cross_entropy(model(skiff.to_tensor(x[i])), skiff.to_tensor(y[i])).backward()
        opt.step()
        opt.clear_grad()
    return model


def accuracy(model, x, y):
    model.eval()
    with skiff.no_grad():
        return float((model(skiff.to_tensor(x)).numpy().argmax(1) == y).mean())


def qat_config():
    return QuantConfig(activation=FakeQuanterWithAbsMaxObserver(moving_rate=0.9),
                       weight=FakeQuanterChannelWiseAbsMaxObserver())


def test_qat_trains_and_convert_computes_what_the_quantized_model_does():
    x, y = problem()
    test_x, test_y = problem(seed=1)
    float_acc = accuracy(train(mlp(), x, y), test_x, test_y)
    qat = QAT(qat_config())
    model = qat.quantize(mlp())
    assert isinstance(model[0], QuantedLinear) and isinstance(model[2], QuantedLinear)
    train(model, x, y)
    q_acc = accuracy(model, test_x, test_y)
    int8 = qat.convert(model)
    assert isinstance(int8[0], QuantizedLinear)
    assert int8[0].weight_int8.dtype == skiff.int8
    assert list(int8[0].weight_scale.shape) == [32]  # per output channel
    assert weight_bytes(int8) == 16 * 32 + 32 * 4
    with skiff.no_grad():
        got = int8(skiff.to_tensor(test_x)).numpy()
        want = model(skiff.to_tensor(test_x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert accuracy(int8, test_x, test_y) == q_acc
    print(f"\nQAT MLP: float {float_acc:.4f}, quantized {q_acc:.4f}")
    assert q_acc >= float_acc - 0.02
    state = int8.state_dict()
    assert state["0.weight_int8"].dtype == skiff.int8 and "0.activation_scale" in state


@pytest.mark.parametrize("activation", [AbsmaxObserver(), MovingAverageAbsmaxObserver(),
                                        KLObserver()], ids=["absmax", "moving", "kl"])
def test_ptq_of_a_trained_model_keeps_its_accuracy(activation):
    x, y = problem()
    test_x, test_y = problem(seed=1)
    model = train(mlp(), x, y)
    float_acc = accuracy(model, test_x, test_y)
    ptq = PTQ(QuantConfig(activation=activation, weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        before = observed(skiff.to_tensor(test_x)).numpy()
        np.testing.assert_array_equal(before, model(skiff.to_tensor(test_x)).numpy())
        for i in range(0, 256, 32):  # calibration: observers watch, nothing changes
            observed(skiff.to_tensor(x[i:i + 32]))
    int8 = ptq.convert(observed)
    acc = accuracy(int8, test_x, test_y)
    print(f"\nPTQ MLP ({type(activation).__name__}): float {float_acc:.4f}, int8 {acc:.4f}")
    assert acc >= float_acc - 0.01


def test_ptq_of_a_cnn():
    skiff.seed(0)
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 4))
    rng = np.random.default_rng(0)
    x = rng.standard_normal([64, 1, 4, 4]).astype(np.float32)
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        observed(skiff.to_tensor(x))
        int8 = ptq.convert(observed)
        got, want = int8(skiff.to_tensor(x)).numpy(), model(skiff.to_tensor(x)).numpy()
    assert list(int8[0].weight_scale.shape) == [4]  # per output channel of the conv
    # int8 weights and inputs: close to the float model, not equal to it
    error = np.abs(got - want).max()
    assert 0 < error < 0.05 * np.abs(want).max()


def test_kl_threshold_cuts_outliers_that_absmax_keeps():
    rng = np.random.default_rng(0)
    values = rng.standard_normal(100000).astype(np.float32)
    values[:5] = 40.0  # a few outliers
    kl, absmax = KLObserver(), AbsmaxObserver()
    kl(skiff.to_tensor(values))
    absmax(skiff.to_tensor(values))
    assert float(absmax.thresholds()) == 40.0
    assert 2.5 < float(kl.thresholds()) < 10.0


def test_config_chooses_layers():
    model = mlp()
    config = QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver())
    config.add_layer_config(model[2], activation=None, weight=None)  # left float
    quantized = PTQ(config).quantize(model)
    assert isinstance(quantized[0], QuantedLinear) and isinstance(quantized[2], nn.Linear)
    assert isinstance(model[0], nn.Linear)  # inplace=False: the original is untouched


def test_mistakes_fail_clearly():
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(mlp())
    with pytest.raises(RuntimeError, match="no data observed yet; run the quantized model on "
                                           "calibration data"):
        ptq.convert(observed)
    with pytest.raises(ValueError, match="has no layer the config quantizes"):
        ptq.quantize(nn.Sequential(nn.ReLU()))
    with pytest.raises(TypeError, match="config must be a QuantConfig"):
        QAT({"activation": None})
    with pytest.raises(ValueError, match="moving_rate must be in"):
        FakeQuanterWithAbsMaxObserver(moving_rate=1.5)
