"""W3 (the CNN of examples/fashion_mnist.py) quantized to int8: a float model trained one
epoch on 30000 Fashion-MNIST images; PTQ (calibrated on 512 images) within 1% of its test
accuracy; QAT (the float model fine-tuned 150 steps with fake quantization) within 0.5% of
the float model fine-tuned the same 150 steps without; the PTQ model saved by jit.save
runs int8 convolutions and matmuls as accurately."""
import copy
import os
import pathlib
import sys

import numpy as np
import pytest

import skiff
import skiff.nn.functional as F
from skiff.quantization import PTQ, QAT, QuantConfig
from skiff.quantization.observers import KLObserver, PerChannelAbsmaxObserver
from skiff.quantization.quanters import (FakeQuanterChannelWiseAbsMaxObserver,
                                         FakeQuanterWithAbsMaxObserver)
from skiff.static import InputSpec

DATA = "/usr/share/datasets/fashion-mnist"
pytestmark = pytest.mark.skipif(not os.path.exists(DATA),
                                reason="needs the Debian package dataset-fashion-mnist")


def arrays(mode, n=None):
    from skiff.vision.datasets import FashionMNIST
    d = FashionMNIST(mode=mode)
    return (d.images[:n].astype(np.float32) / 127.5 - 1.0)[:, None], d.labels[:n]


def fit(model, x, y, steps, lr, batch=64, seed=0):
    opt = skiff.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    order = np.random.default_rng(seed).permutation(len(x))
    model.train()
    for step in range(steps):
        i = order[(step * batch) % len(x):][:batch]
        F.cross_entropy(model(skiff.to_tensor(x[i])), skiff.to_tensor(y[i])).backward()
        opt.step()
        opt.clear_grad()
    return model


def accuracy(model, x, y):
    model.eval()
    with skiff.no_grad():
        pred = np.concatenate([model(skiff.to_tensor(x[i:i + 1000])).numpy().argmax(1)
                               for i in range(0, len(x), 1000)])
    return float((pred == y).mean())


@pytest.fixture(scope="module")
def trained():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples"))
    from fashion_mnist import ConvNet
    train_x, train_y = arrays("train", 30000)
    test_x, test_y = arrays("test")
    skiff.seed(3)
    model = fit(ConvNet(), train_x, train_y, steps=30000 // 64, lr=1e-3)
    return model, (train_x, train_y), (test_x, test_y), accuracy(model, test_x, test_y)


def test_ptq_within_one_percent_and_saved_in_int8(trained, tmp_path):
    """PTQ's accuracy; then jit.save makes the convolutions and the classifier int8
    compute (quantized_conv2d, quantized_matmul), and the loaded program's accuracy is the
    converted model's (int32 sums against float ones: a handful of images may differ)."""
    model, (train_x, _), (test_x, test_y), float_acc = trained
    ptq = PTQ(QuantConfig(activation=KLObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        for i in range(0, 512, 128):
            observed(skiff.to_tensor(train_x[i:i + 128]))
    int8 = ptq.convert(observed)
    acc = accuracy(int8, test_x, test_y)
    print(f"\nW3 PTQ int8: {acc:.4f} (float {float_acc:.4f})")
    assert acc >= float_acc - 0.01

    path = str(tmp_path / "w3_int8")
    skiff.jit.save(int8, path, input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
    loaded = skiff.jit.load(path)
    kinds = [op.type for op in loaded.program().global_block().ops]
    assert kinds.count("quantized_conv2d") == 2 and kinds.count("quantized_matmul") == 1, kinds
    assert "conv2d" not in kinds and "fake_quantize_dequantize" not in kinds, kinds
    saved_acc = accuracy(loaded, test_x, test_y)
    print(f"W3 PTQ int8, saved program: {saved_acc:.4f}")
    assert abs(saved_acc - acc) <= 0.002


def test_qat_within_half_a_percent(trained):
    model, (train_x, train_y), (test_x, test_y), _ = trained
    tuned = fit(copy.deepcopy(model), train_x, train_y, steps=150, lr=1e-4, seed=1)
    float_acc = accuracy(tuned, test_x, test_y)
    qat = QAT(QuantConfig(activation=FakeQuanterWithAbsMaxObserver(moving_rate=0.9),
                          weight=FakeQuanterChannelWiseAbsMaxObserver()))
    quantized = fit(qat.quantize(model), train_x, train_y, steps=150, lr=1e-4, seed=1)
    acc = accuracy(qat.convert(quantized), test_x, test_y)
    print(f"\nW3 QAT int8: {acc:.4f} (float, fine-tuned alike: {float_acc:.4f})")
    assert acc >= float_acc - 0.005
