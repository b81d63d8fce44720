"""skiff.vision.models against paddle.vision.models: the same state_dict layout (names,
order, shapes), and, with Paddle's weights copied in by set_state_dict, the same outputs (and
gradients for two models), one representative model per family on small inputs."""
import numpy as np
import pytest

import skiff
from skiff.vision import models

# (builder, kwargs, input shape): one model of each family, kept small.
CASES = [
    ("LeNet", {}, [2, 1, 28, 28]),
    ("AlexNet", {"num_classes": 0}, [1, 3, 64, 64]),
    ("vgg11", {"batch_norm": True, "num_classes": 0}, [1, 3, 32, 32]),
    ("resnet18", {"num_classes": 10}, [2, 3, 32, 32]),
    ("resnext50_32x4d", {"num_classes": 10}, [1, 3, 32, 32]),
    ("mobilenet_v1", {"scale": 0.25}, [1, 3, 32, 32]),
    ("mobilenet_v2", {"scale": 0.5, "num_classes": 10}, [1, 3, 32, 32]),
    ("mobilenet_v3_small", {"num_classes": 10}, [1, 3, 32, 32]),
    ("MobileNetV3Large", {"scale": 0.5, "with_pool": False, "num_classes": 0},
     [1, 3, 32, 32]),
    ("shufflenet_v2_x0_25", {"num_classes": 10}, [1, 3, 32, 32]),
    ("shufflenet_v2_swish", {"num_classes": 0}, [1, 3, 32, 32]),
    ("squeezenet1_0", {"num_classes": 10}, [1, 3, 64, 64]),
    ("squeezenet1_1", {"with_pool": False}, [1, 3, 64, 64]),
    ("densenet121", {"num_classes": 10}, [1, 3, 32, 32]),
    ("googlenet", {"num_classes": 10}, [1, 3, 224, 224]),
    ("inception_v3", {"num_classes": 10}, [1, 3, 75, 75]),
]


def layout(model):
    return [(k, list(v.shape)) for k, v in model.state_dict().items()]


def random_state(paddle_model, rng):
    """A state dict of random numpy values for ``paddle_model`` (positive variances)."""
    state = {}
    for k, v in paddle_model.state_dict().items():
        a = (rng.standard_normal(v.shape) * 0.1).astype("float32")
        state[k] = np.abs(a) + 0.5 if k.endswith("_variance") else a
    return state


def twins(paddle, name, kwargs, rng):
    """(Paddle model, skiff model) of builder ``name`` holding the same random weights."""
    theirs = getattr(paddle.vision.models, name)(**kwargs)
    ours = getattr(models, name)(**kwargs)
    assert layout(ours) == layout(theirs)
    state = random_state(theirs, rng)
    theirs.set_state_dict({k: paddle.to_tensor(v) for k, v in state.items()})
    ours.set_state_dict({k: skiff.to_tensor(v) for k, v in state.items()})
    return theirs, ours


def outputs(result):
    return [r.numpy() for r in (result if isinstance(result, (tuple, list)) else [result])]


@pytest.mark.parametrize("name,kwargs,shape", CASES, ids=[c[0] for c in CASES])
def test_layout_and_outputs_match_paddle(paddle, name, kwargs, shape):
    rng = np.random.default_rng(0)
    theirs, ours = twins(paddle, name, kwargs, rng)
    theirs.eval()
    ours.eval()
    x = rng.standard_normal(shape).astype("float32")
    expected = outputs(theirs(paddle.to_tensor(x)))
    got = outputs(ours(skiff.to_tensor(x)))
    assert [g.shape for g in got] == [e.shape for e in expected]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(e).max()))


@pytest.mark.parametrize("name,kwargs", [("resnet18", {"num_classes": 10}),
                                         ("mobilenet_v3_small", {"num_classes": 0})])
def test_training_forward_and_gradients_match_paddle(paddle, name, kwargs):
    rng = np.random.default_rng(1)
    theirs, ours = twins(paddle, name, kwargs, rng)
    # (64x64: batch statistics over at least 2x2x2 values, which the last stage of a
    # smaller input would estimate from too few to compare closely)
    x = rng.standard_normal([2, 3, 64, 64]).astype("float32")
    results = []
    for lib, model in ((paddle, theirs), (skiff, ours)):
        model.train()
        out = model(lib.to_tensor(x))
        (out * out).mean().backward()
        first = next(p for p in model.parameters() if p.grad is not None)
        results.append((out.numpy(), first.grad.numpy(), model.state_dict()))
    (out_p, grad_p, state_p), (out_s, grad_s, state_s) = results
    np.testing.assert_allclose(out_s, out_p, rtol=1e-3, atol=1e-4 * np.abs(out_p).max())
    np.testing.assert_allclose(grad_s, grad_p, rtol=1e-3, atol=1e-3 * np.abs(grad_p).max())
    for key in [k for k in state_p if k.endswith("_mean")][:3]:  # running statistics moved
        np.testing.assert_allclose(state_s[key].numpy(), state_p[key].numpy(), atol=1e-5)


def test_a_state_dict_saved_by_paddle_loads(paddle, tmp_path):
    theirs = paddle.vision.models.LeNet()
    paddle.save(theirs.state_dict(), str(tmp_path / "lenet.pdparams"))
    ours = models.LeNet()
    ours.set_state_dict(skiff.load(str(tmp_path / "lenet.pdparams")))
    x = np.random.default_rng(2).random([1, 1, 28, 28], dtype=np.float32)
    np.testing.assert_allclose(ours(skiff.to_tensor(x)).numpy(),
                               theirs(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_every_paddle_builder_exists(paddle):
    assert set(paddle.vision.models.__all__) <= set(models.__all__)
    for name in paddle.vision.models.__all__:
        assert getattr(skiff.vision, name) is getattr(models, name)
    from skiff.vision.models.resnet import BasicBlock, BottleneckBlock  # noqa: F401
    from skiff.vision.models.vgg import make_layers  # noqa: F401


@pytest.mark.parametrize("builder", ["resnet18", "vgg11", "mobilenet_v3_small",
                                     "shufflenet_v2_swish", "squeezenet1_1", "densenet121",
                                     "googlenet", "inception_v3", "alexnet", "mobilenet_v1"])
def test_pretrained_weights_are_refused_with_a_way_out(builder):
    with pytest.raises(skiff.framework.arguments.ArgumentError,
                       match="pretrained=True.*set_state_dict"):
        getattr(models, builder)(pretrained=True)


@pytest.mark.parametrize("make,message", [
    (lambda: models.ResNet(models.resnet.BasicBlock, 20), "depth must be one of"),
    (lambda: models.SqueezeNet("2.0"), "version must be one of"),
    (lambda: models.ShuffleNetV2(scale=0.75), "scale must be one of"),
    (lambda: models.ShuffleNetV2(act="gelu"), "act must be"),
    (lambda: models.DenseNet(layers=100), "layers must be one of"),
    (lambda: models.mobilenet_v2(scale=-1.0), "scale must be > 0"),
    (lambda: models.resnet18(pretrained="yes"), "pretrained must be a bool"),
])
def test_bad_arguments_are_named(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_num_classes_and_with_pool_shape_the_head():
    x = skiff.rand([1, 3, 64, 64])
    assert models.resnet18(num_classes=0)(x).shape == [1, 512, 1, 1]
    assert models.resnet18(num_classes=0, with_pool=False)(x).shape == [1, 512, 2, 2]
    assert "fc" not in dict(models.resnet18(num_classes=0).named_children())
    assert models.mobilenet_v1(scale=0.25, num_classes=7)(x).shape == [1, 7]
    assert models.shufflenet_v2_x0_5(num_classes=0, with_pool=False)(x).shape == \
        [1, 1024, 2, 2]
