"""nn.utils.weight_norm / remove_weight_norm / spectral_norm (skiff/nn/norm_hooks.py) and
static.nn.spectral_norm: parameter layout as Paddle's, values against Paddle with the
same weights, gradients through the reparametrisation, errors."""
import numpy as np
import pytest

import skiff
from skiff.nn.utils import remove_weight_norm, spectral_norm, weight_norm

paddle = pytest.importorskip("paddle")


def _pair(make):
    paddle.seed(2023)
    mine, ref = make(skiff), make(paddle)
    mine.set_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    return mine, ref


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_matches_paddle(dim):
    mine, ref = _pair(lambda lib: lib.nn.Conv2D(3, 5, 3))
    weight_norm(mine, dim=dim)
    paddle.nn.utils.weight_norm(ref, dim=dim)
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert list(mine.state_dict()) == list(ref.state_dict())
    np.testing.assert_allclose(mine.weight_g.numpy(), ref.weight_g.numpy(), rtol=1e-6)
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype("float32")
    outs = []
    for layer, lib in ((mine, skiff), (ref, paddle)):
        out = layer(lib.to_tensor(x))
        (out * out).sum().backward()
        outs.append((out.numpy(), layer.weight_g.grad.numpy(), layer.weight_v.grad.numpy()))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * np.abs(b).max())


def test_remove_weight_norm_restores_the_parameter():
    conv = skiff.nn.Conv2D(3, 5, 3)
    w0 = conv.weight.numpy()
    weight_norm(conv)
    with skiff.no_grad():
        conv.weight_g.set_value(conv.weight_g.numpy() * 2)
    conv(skiff.rand([1, 3, 4, 4]))
    remove_weight_norm(conv)
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(conv.weight.numpy(), 2 * w0, rtol=1e-5)
    assert not conv._forward_pre_hooks
    with pytest.raises(ValueError, match="not found"):
        remove_weight_norm(conv)


def test_spectral_norm_layout_and_values():
    mine, ref = _pair(lambda lib: lib.nn.Conv2D(3, 2, 3))
    assert spectral_norm(mine) is mine
    paddle.nn.utils.spectral_norm(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())
    np.testing.assert_array_equal(mine.weight.numpy(), ref.weight.numpy())  # until a forward
    mine.set_state_dict({"weight_u": ref.weight_u.numpy(), "weight_v": ref.weight_v.numpy()})
    x = np.random.default_rng(1).standard_normal((1, 3, 5, 5)).astype("float32")
    for _ in range(2):
        got, want = mine(skiff.to_tensor(x)), ref(paddle.to_tensor(x))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(mine.weight_u.numpy(), ref.weight_u.numpy(), rtol=1e-5)
    got.sum().backward()
    assert mine.weight_orig.grad.shape == [2, 3, 3, 3]
    mine.eval()
    u = mine.weight_u.numpy()
    mine(skiff.to_tensor(x))
    np.testing.assert_array_equal(mine.weight_u.numpy(), u)  # eval: no power iteration
    transposed = spectral_norm(skiff.nn.Conv2DTranspose(3, 2, 3))
    assert transposed.weight_u.shape == [2]


def test_static_spectral_norm():
    skiff.enable_static()
    try:
        w = skiff.static.data(name="w", shape=[2, 8, 4, 4], dtype="float32")
        out = skiff.static.nn.spectral_norm(w, dim=1, power_iters=30)
        exe = skiff.static.Executor()
        exe.run(skiff.static.default_startup_program())
        value = np.random.default_rng(2).random((2, 8, 4, 4)).astype("float32")
        got, = exe.run(feed={"w": value}, fetch_list=[out])
    finally:
        skiff.disable_static()
    sigma = np.linalg.svd(value.transpose(1, 0, 2, 3).reshape(8, -1))[1][0]
    np.testing.assert_allclose(got, value / sigma, rtol=1e-3)


def test_errors():
    with pytest.raises(ValueError, match="no parameter 'kernel'"):
        weight_norm(skiff.nn.Linear(2, 2), name="kernel")
    with pytest.raises(TypeError, match="must be a Layer"):
        spectral_norm("conv")
    with pytest.raises(ValueError, match="n_power_iterations"):
        spectral_norm(skiff.nn.Linear(2, 2), n_power_iterations=0)
    lin = weight_norm(skiff.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="already has"):
        weight_norm(lin)
