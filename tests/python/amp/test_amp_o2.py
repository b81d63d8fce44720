"""AMP level O2: decorate(level='O2') makes the parameters bfloat16 (normalization layers'
and excluded layers' stay float32) and optimizers update them through float32 master
weights; auto_cast(level='O2') runs every op with a bfloat16 kernel in bfloat16 (conv2d,
relu, max pooling, flatten, matmul, the bias adds, softmax) and the others (the loss) in
float32. W3's CNN trains so on Fashion-MNIST as well as in float32."""
import os
import pathlib
import sys

import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def test_decorate_o2_casts_parameters_but_norms_and_excluded_layers():
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1D(6), nn.Linear(6, 3))
    opt = skiff.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    m, o = skiff.amp.decorate(model, opt, level="O2", dtype="bfloat16",
                              excluded_layers=[model[2]])
    assert m is model and o is opt
    assert model[0].weight.dtype == skiff.bfloat16 and model[0].bias.dtype == skiff.bfloat16
    assert model[1].weight.dtype == skiff.float32  # a normalization layer
    assert model[2].weight.dtype == skiff.float32  # excluded
    with pytest.raises(skiff.Error, match="float16"):
        skiff.amp.decorate(model, level="O2", dtype="float16")
    with pytest.raises(skiff.Error, match="master_weight=False"):
        skiff.amp.decorate(model, level="O2", dtype="bfloat16", master_weight=False)


def test_bfloat16_parameters_are_updated_through_float32_master_weights():
    """SGD on a bfloat16 weight: the master weight takes the float32 step (small steps
    accumulate there instead of rounding away) and the weight is the master rounded."""
    skiff.seed(0)
    layer = nn.Linear(3, 2)
    skiff.amp.decorate(layer, level="O2", dtype="bfloat16")
    w0 = layer.weight.astype("float32").numpy()
    opt = skiff.optimizer.SGD(learning_rate=1e-4, parameters=layer.parameters())
    x = skiff.to_tensor(np.ones([5, 3], np.float32))
    steps = 20
    for _ in range(steps):
        with skiff.amp.auto_cast(level="O2", dtype="bfloat16"):
            y = layer(x)
        assert y.dtype == skiff.bfloat16
        y.astype("float32").sum().backward()
        opt.step()
        opt.clear_grad()
    # d(sum y)/dW = x^T 1: 5 for every weight; 20 steps of 1e-4 * 5 = 0.01 in all.
    master = opt.state_dict()[layer.weight.name + "_fp32_master_0"].numpy()
    np.testing.assert_allclose(master, w0 - steps * 5e-4, rtol=1e-5, atol=1e-6)
    rounded = skiff.to_tensor(master).astype("bfloat16").astype("float32").numpy()
    np.testing.assert_array_equal(layer.weight.astype("float32").numpy(), rounded)
    assert layer.weight.dtype == skiff.bfloat16


def test_auto_cast_o2_runs_bfloat16_kernels_and_floats_the_rest():
    x = skiff.to_tensor(np.random.default_rng(0).standard_normal([2, 1, 4, 4]).astype("float32"))
    with skiff.amp.auto_cast(level="O2", dtype="bfloat16"):
        pooled = F.max_pool2d(F.relu(x), 2)
        probs = F.softmax(pooled.flatten(1), axis=-1)
        loss = F.cross_entropy(probs, skiff.to_tensor(np.array([1, 2], np.int64)))
    assert pooled.dtype == skiff.bfloat16 and probs.dtype == skiff.bfloat16
    assert loss.dtype == skiff.float32  # no bfloat16 kernel: float32
    want = F.softmax(F.max_pool2d(F.relu(x.astype("bfloat16").astype("float32")), 2)
                     .flatten(1), axis=-1).numpy()
    np.testing.assert_allclose(probs.astype("float32").numpy(), want, rtol=1e-2, atol=1e-3)


@pytest.mark.skipif(not os.path.exists(DATA),
                    reason="needs the Debian package dataset-fashion-mnist")
def test_w3_trains_in_o2_as_well_as_in_float32():
    """W3's CNN, 150 Adam steps of 64 Fashion-MNIST images, float32 and O2 from the same
    initial weights: the O2 model's test accuracy within 2% of the float32 one's."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "examples"))
    from fashion_mnist import ConvNet
    from skiff.vision.datasets import FashionMNIST
    train, test = FashionMNIST(mode="train"), FashionMNIST(mode="test")
    x = (train.images[:9600].astype(np.float32) / 127.5 - 1.0)[:, None]
    y = train.labels[:9600].astype(np.int64)
    tx = (test.images[:2000].astype(np.float32) / 127.5 - 1.0)[:, None]
    ty = test.labels[:2000]

    def run(level):
        skiff.seed(7)
        model = ConvNet()
        opt = skiff.optimizer.Adam(learning_rate=2e-3, parameters=model.parameters())
        if level == "O2":
            model, opt = skiff.amp.decorate(model, opt, level="O2", dtype="bfloat16")
        losses = []
        for step in range(150):
            i = slice(step * 64, step * 64 + 64)
            with skiff.amp.auto_cast(enable=level == "O2", level="O2", dtype="bfloat16"):
                loss = F.cross_entropy(model(skiff.to_tensor(x[i])), skiff.to_tensor(y[i]))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss.numpy()))
        model.eval()
        with skiff.no_grad(), skiff.amp.auto_cast(enable=level == "O2", level="O2",
                                                  dtype="bfloat16"):
            logits = model(skiff.to_tensor(tx)).astype("float32").numpy()
        return float((logits.argmax(1) == ty).mean()), losses

    f32_acc, f32_losses = run("O0")
    o2_acc, o2_losses = run("O2")
    print(f"\nW3 150 steps: float32 {f32_acc:.4f}, O2 {o2_acc:.4f}")
    assert np.mean(o2_losses[-20:]) < 0.5 * np.mean(o2_losses[:5])
    assert o2_acc >= f32_acc - 0.02
