"""jit.save / jit.load round trips: a converted layer (control flow included) written
as .skmodel/.skparams and loaded as a TranslatedLayer gives identical outputs for
new inputs, any batch size, and trainable parameters with gradients."""
import os

import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.static import InputSpec


def data(*shape, seed=0):
    return skiff.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 12)
        self.bn = nn.BatchNorm1D(12)
        self.fc2 = nn.Linear(12, 3)

    def forward(self, x):
        h = F.relu(self.bn(self.fc1(x)))
        if h.mean() > 0.5:
            h = h * 0.5
        steps = 0
        while h.abs().max() > 1.0 and steps < 5:
            h = h * 0.5
            steps += 1
        return self.fc2(h)


def test_round_trip_gives_identical_outputs(tmp_path):
    skiff.seed(1)
    net = Net()
    net.train()
    net(data(16, 6, seed=9))  # move the batch-norm statistics away from their start
    net.eval()
    path = str(tmp_path / "model" / "net")
    skiff.jit.save(net, path, input_spec=[InputSpec([None, 6], "float32", "x")])
    assert os.path.exists(path + ".skmodel") and os.path.exists(path + ".skparams")
    loaded = skiff.jit.load(path)
    for batch in (1, 5):
        x = data(batch, 6, seed=batch)
        np.testing.assert_array_equal(loaded(x).numpy(), net(x).numpy())
    names = {p.name for p in loaded.parameters()}
    assert {p.name for p in net.parameters()} == names


def test_loaded_layer_trains(tmp_path):
    skiff.seed(2)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    path = str(tmp_path / "seq")
    skiff.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32")])
    loaded = skiff.jit.load(path)
    x = data(3, 4)
    (loaded(x) ** 2).sum().backward()
    (net(x) ** 2).sum().backward()
    by_name = {q.name: q for q in loaded.parameters()}
    assert len(by_name) == len(net.parameters()) == 4
    for p in net.parameters():
        np.testing.assert_allclose(by_name[p.name].grad.numpy(), p.grad.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_feed_names_come_from_the_input_specs(tmp_path):
    net = nn.Linear(4, 2)
    path = str(tmp_path / "named")
    skiff.jit.save(net, path, input_spec=[InputSpec([None, 4], "float32", name="image")])
    skiff.enable_static()
    try:
        exe = skiff.static.Executor()
        program, feeds, fetches = skiff.static.load_inference_model(path, exe)
        x = np.ones([2, 4], "float32")
        out, = exe.run(program, feed={"image": x}, fetch_list=fetches)
    finally:
        skiff.disable_static()
    assert feeds == ["image"]
    np.testing.assert_allclose(out, net(skiff.to_tensor(x)).numpy(), rtol=1e-6)


def test_save_needs_specs(tmp_path):
    with pytest.raises(ValueError, match="input_spec"):
        skiff.jit.save(nn.Linear(2, 2), str(tmp_path / "x"))
