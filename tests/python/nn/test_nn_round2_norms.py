"""SyncBatchNorm (one process: batch norm) and convert_sync_batchnorm, SpectralNorm
against PaddlePaddle with the same u and v, and the PyTorch-style aliases Paddle 3.3
exposes (each the same class)."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn

rng = np.random.default_rng(11)


def test_sync_batch_norm_normalises_like_batch_norm_with_grads():
    x = rng.standard_normal((4, 3, 5, 5)).astype("float32")
    sync, ref = nn.SyncBatchNorm(3), torch.nn.BatchNorm2d(3, momentum=0.1)
    t = skiff.to_tensor(x)
    t.stop_gradient = False
    out = sync(t)
    tt = torch.tensor(x, requires_grad=True)
    rout = ref(tt)
    np.testing.assert_allclose(out.numpy(), rout.detach().numpy(), rtol=1e-5, atol=1e-5)
    w = np.linspace(-1, 1, x.size).reshape(x.shape).astype("float32")
    skiff.sum(out * skiff.to_tensor(w)).backward()
    (rout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-4, atol=1e-6)
    plain = nn.BatchNorm2D(3)
    plain(skiff.to_tensor(x))
    np.testing.assert_allclose(sync._mean.numpy(), plain._mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync._variance.numpy(), plain._variance.numpy(), rtol=1e-6)
    sync.eval()
    plain.eval()
    np.testing.assert_allclose(sync(skiff.to_tensor(x)).numpy(),
                               plain(skiff.to_tensor(x)).numpy(), rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="data_format"):
        nn.SyncBatchNorm(3, data_format="CHWN")


def test_convert_sync_batchnorm_keeps_parameters():
    model = nn.Sequential(nn.Conv2D(2, 3, 3), nn.BatchNorm2D(3),
                          nn.Sequential(nn.BatchNorm1D(4)))
    bn = model[1]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], nn.SyncBatchNorm)
    assert isinstance(converted[2][0], nn.SyncBatchNorm)
    assert converted[1].weight is bn.weight and converted[1]._mean is bn._mean
    x = skiff.to_tensor(rng.standard_normal((2, 2, 6, 6)).astype("float32"))
    converted.eval()
    bn.eval()
    np.testing.assert_array_equal(converted[1](converted[0](x)).numpy(),
                                  bn(converted[0](x)).numpy())
    y = skiff.to_tensor(rng.standard_normal((5, 4)).astype("float32"))
    np.testing.assert_allclose(converted[2][0](y).numpy(), y.numpy() / np.sqrt(1 + 1e-5),
                               rtol=1e-6)
    single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm3D(2))
    assert isinstance(single, nn.SyncBatchNorm)


def test_sync_batch_norm_static():
    from static_twin import assert_static_matches_eager
    layer = nn.SyncBatchNorm(3)
    layer.eval()
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    assert_static_matches_eager(lambda x: layer(x), {"x": x}, ["x"])


@pytest.mark.parametrize("shape,dim,iters", [([4, 6], 0, 1), ([3, 4, 5], 1, 2), ([2, 3, 2], 1, 0)])
def test_spectral_norm_matches_paddle(shape, dim, iters):
    paddle = pytest.importorskip("paddle")
    w = rng.standard_normal(shape).astype("float32")
    ours = nn.SpectralNorm(shape, dim=dim, power_iters=iters)
    ref = paddle.nn.SpectralNorm(shape, dim=dim, power_iters=iters)
    ref.weight_u.set_value(ours.weight_u.numpy())
    ref.weight_v.set_value(ours.weight_v.numpy())
    out = ours(skiff.to_tensor(w))
    np.testing.assert_allclose(out.numpy(), ref(paddle.to_tensor(w)).numpy(), rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_array_equal(ours.weight_u.numpy(), ref.weight_u.numpy())
    assert ours.weight_u.stop_gradient and ours.weight_v.stop_gradient


def test_spectral_norm_gradient_is_the_derivative_of_its_forward():
    """(Paddle's own spectral_norm_grad departs from finite differences of its forward;
    skiff's gradient is the derivative, u and v held fixed.)"""
    shape, dim = [3, 4, 2], 1
    layer = nn.SpectralNorm(shape, dim=dim, power_iters=2, dtype="float64")
    w = rng.standard_normal(shape)
    g = np.linspace(-1, 1, w.size).reshape(shape)
    t = skiff.to_tensor(w)
    t.stop_gradient = False
    skiff.sum(layer(t) * skiff.to_tensor(g)).backward()
    u, v = layer.weight_u.numpy(), layer.weight_v.numpy()

    def sigma(weight):
        mat = np.moveaxis(weight, dim, 0).reshape(shape[dim], -1)
        return float(u @ mat @ v)  # the forward with u, v after the iterations fixed

    mat = np.moveaxis(w, dim, 0).reshape(shape[dim], -1)
    uu, vv = u, v
    for _ in range(2):
        vv = mat.T @ uu
        vv = vv / (np.linalg.norm(vv) + 1e-12)
        uu = mat @ vv
        uu = uu / (np.linalg.norm(uu) + 1e-12)
    u, v = uu, vv
    s = sigma(w)
    rest = [n for i, n in enumerate(shape) if i != dim]
    outer = np.moveaxis(np.outer(u, v).reshape([shape[dim]] + rest), 0, dim)
    expected = g / s - outer * (g * w).sum() / s ** 2
    np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-9)


def test_spectral_norm_static_and_errors():
    w = rng.standard_normal((3, 4))
    s = np.linalg.svd(w, compute_uv=False)[0]
    layer3 = nn.SpectralNorm([3, 4], power_iters=50, dtype="float64")
    np.testing.assert_allclose(layer3(skiff.to_tensor(w)).numpy(), w / s, rtol=1e-8)
    skiff.enable_static()
    try:
        import skiff.static as st
        main, startup = st.Program(), st.Program()
        with st.program_guard(main, startup):
            v = st.data("w", [3, 4], "float64")
            out = layer3(v)
        got, = st.Executor().run(main, feed={"w": w}, fetch_list=[out])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(got, w / s, rtol=1e-8)
    with pytest.raises(ValueError, match="dim"):
        nn.SpectralNorm([3, 4, 2], dim=2)
    with pytest.raises(skiff.Error, match="weight has shape"):
        layer3(skiff.to_tensor(np.zeros((4, 3))))


def test_aliases_are_paddles_classes():
    paddle = pytest.importorskip("paddle")
    names = ["Conv1d", "Conv2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
             "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
             "Module", "ModuleList", "ModuleDict"]
    for name in names:
        ours, theirs = getattr(nn, name), getattr(paddle.nn, name)
        assert ours.__name__ == theirs.__name__ or (name == "Module" and ours is nn.Layer)
        assert ours is getattr(nn, theirs.__name__)
    conv = nn.Conv2d(2, 3, 3, padding=1)
    assert isinstance(conv, nn.Conv2D) and list(conv.weight.shape) == [3, 2, 3, 3]
    assert isinstance(nn.ModuleList([nn.Linear(2, 2)]), nn.LayerList)
