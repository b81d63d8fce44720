"""Normalisation (skiff/nn/functional/norm.py, nn/layer/norm.py, norm_sync.py,
norm_spectral.py) against PyTorch (and Paddle where their semantics differ): batch norm
(training, running statistics, eval, channels last, the old BatchNorm), layer norm,
normalize, group and instance norm, rms_norm, local_response_norm; SyncBatchNorm (one
process: batch norm) and convert_sync_batchnorm; SpectralNorm against PaddlePaddle with the
same u and v."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, set_param, tensor, torch_tensor


def _bn_pair(layer_cls, torch_cls, c, dtype="float64"):
    layer = layer_cls(c).to(dtype=dtype)
    ref = torch_cls(c, momentum=0.1).to(getattr(torch, dtype))  # torch's 0.1 = Paddle's 0.9
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(rand(c, seed=7, low=0.5, high=1.5, dtype=dtype)))
        ref.bias.copy_(torch.tensor(rand(c, seed=8, dtype=dtype)))
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    return layer, ref


@pytest.mark.parametrize("cls,tcls,shape", [(nn.BatchNorm2D, torch.nn.BatchNorm2d, (4, 3, 5, 6)),
                                            (nn.BatchNorm1D, torch.nn.BatchNorm1d, (6, 3)),
                                            (nn.BatchNorm1D, torch.nn.BatchNorm1d, (4, 3, 7))])
def test_batch_norm_training_matches_torch(cls, tcls, shape):
    layer, ref = _bn_pair(cls, tcls, 3)
    x = rand(*shape, low=-2, high=3)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    close(layer.bias.grad, ref.bias.grad)
    close(layer._mean, ref.running_mean)
    assert layer._mean.stop_gradient and layer._mean.grad is None


def test_batch_norm_running_statistics_follow_paddle(paddle):
    x = rand(8, 3, 4, 4, low=-1, high=2, dtype="float32")
    layer = nn.BatchNorm2D(3)
    ref = paddle.nn.BatchNorm2D(3)
    for step in range(3):
        batch = x * (step + 1)
        layer(tensor(batch))
        ref(paddle.to_tensor(batch))
    close(layer._mean, ref._mean.numpy(), "float32")
    close(layer._variance, ref._variance.numpy(), "float32")
    layer.eval()
    ref.eval()
    before = layer._mean.numpy().copy()
    close(layer(tensor(x)), ref(paddle.to_tensor(x)).numpy(), "float32")
    np.testing.assert_array_equal(layer._mean.numpy(), before)  # eval leaves them alone


def test_batch_norm_eval_uses_running_statistics_like_torch():
    layer, ref = _bn_pair(nn.BatchNorm2D, torch.nn.BatchNorm2d, 3)
    for seed in range(2):
        layer(tensor(rand(4, 3, 2, 2, seed=seed)))
    layer.eval()
    with torch.no_grad():
        ref.running_mean.copy_(torch.tensor(layer._mean.numpy()))
        ref.running_var.copy_(torch.tensor(layer._variance.numpy()))
    ref.eval()
    x = rand(2, 3, 2, 2, seed=5)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)


def test_batch_norm_channels_last_and_errors():
    x = rand(2, 5, 4, 3)
    layer = nn.BatchNorm2D(3, data_format="NHWC").double()
    out = layer(tensor(x))
    ref = TF.batch_norm(torch.tensor(x).permute(0, 3, 1, 2), None, None, training=True)
    close(out, ref.permute(0, 2, 3, 1))
    with pytest.raises(skiff.Error, match=r"BatchNorm2D.*4-D.*\[2, 3\]"):
        nn.BatchNorm2D(3)(tensor(rand(2, 3)))
    with pytest.raises(skiff.Error, match=r"batch_norm.*4 channels.*3"):
        nn.BatchNorm2D(3)(tensor(rand(2, 4, 2, 2, dtype="float32")))


def test_old_batch_norm_with_activation():
    layer = nn.BatchNorm(3, act="relu").double()
    x = rand(4, 3, 2, 2)
    out = layer(tensor(x))
    close(out, TF.relu(TF.batch_norm(torch.tensor(x), None, None, training=True)))
    assert list(layer.state_dict()) == ["weight", "bias", "_mean", "_variance"]


@pytest.mark.parametrize("norm_shape", [[6], [5, 6]])
def test_layer_norm_matches_torch(norm_shape):
    layer = nn.LayerNorm(norm_shape).double()
    ref = torch.nn.LayerNorm(norm_shape).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(rand(*norm_shape, seed=3)))
        ref.bias.copy_(torch.tensor(rand(*norm_shape, seed=4)))
    set_param(layer.weight, ref.weight.detach().numpy().reshape(-1))  # Paddle: flattened
    set_param(layer.bias, ref.bias.detach().numpy().reshape(-1))
    x = rand(3, 5, 6)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad.reshape(-1))
    close(layer.bias.grad, ref.bias.grad.reshape(-1))


def test_layer_norm_without_affine_and_errors():
    layer = nn.LayerNorm(4, weight_attr=False, bias_attr=False)
    assert layer.parameters() == []
    x = rand(2, 4, dtype="float32")
    close(layer(tensor(x)), TF.layer_norm(torch.tensor(x), [4]), "float32")
    with pytest.raises(skiff.Error, match=r"LayerNorm.*\[4\].*\[2, 5\]"):
        layer(tensor(rand(2, 5, dtype="float32")))


def test_normalize_matches_torch():
    x = rand(3, 4)
    close(F.normalize(tensor(x), axis=1), TF.normalize(torch.tensor(x), dim=1))
    close(F.normalize(tensor(x), p=1, axis=0), TF.normalize(torch.tensor(x), p=1, dim=0))


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_group_norm_matches_torch(groups):
    layer = nn.GroupNorm(groups, 4).double()
    ref = torch.nn.GroupNorm(groups, 4).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(rand(4, seed=1, low=0.5, high=1.5)))
        ref.bias.copy_(torch.tensor(rand(4, seed=2)))
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(3, 4, 5, 2, low=-2, high=3)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    close(layer.bias.grad, ref.bias.grad)


def test_instance_norm_matches_torch():
    layer = nn.InstanceNorm2D(3).double()
    assert list(layer.state_dict()) == ["scale", "bias"]  # Paddle's names
    ref = torch.nn.InstanceNorm2d(3, affine=True).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(rand(3, seed=1, low=0.5, high=1.5)))
    set_param(layer.scale, ref.weight)
    x = rand(2, 3, 4, 5)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.scale.grad, ref.weight.grad)
    x1 = rand(2, 3, 6)
    close(nn.InstanceNorm1D(3, weight_attr=False, bias_attr=False).double()(tensor(x1)),
          TF.instance_norm(torch.tensor(x1)))
    with pytest.raises(skiff.Error, match=r"InstanceNorm2D.*4-D"):
        layer(tensor(x1))
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


@pytest.mark.parametrize("shape,norm", [((3, 4), [4]), ((2, 3, 4), [3, 4])])
def test_rms_norm_matches_torch(shape, norm):
    x, w = rand(*shape), rand(*norm, seed=1)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    ws, wt = tensor(w, True), torch_tensor(w, True)
    out, invvar = F.rms_norm(xs, norm, ws, 1e-5)
    compare(out, TF.rms_norm(xt, norm, wt, 1e-5))
    close(xs.grad, xt.grad)
    close(ws.grad, wt.grad)
    rows = int(np.prod(shape[:len(shape) - len(norm)]))
    assert invvar.shape == [rows] and invvar.dtype == skiff.float32
    axes = tuple(range(len(shape) - len(norm), len(shape)))
    close(invvar, 1 / np.sqrt((x ** 2).mean(axes).reshape(-1) + 1e-5), "float32")
    with pytest.raises(ValueError, match="rms_norm.*normalized_shape"):
        F.rms_norm(xs, [5])


@pytest.mark.parametrize("shape,fmt,size", [((2, 6, 5), "NCL", 3), ((2, 7, 3, 4), "NCHW", 5),
                                            ((2, 3, 4, 6), "NHWC", 2),
                                            ((1, 5, 2, 3, 2), "NCDHW", 4)])
def test_local_response_norm_matches_torch(shape, fmt, size):
    x = rand(*shape)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    ref_in = xt.movedim(-1, 1) if fmt[-1] == "C" else xt
    ref = TF.local_response_norm(ref_in, size, 0.3, 0.6, 1.5)
    ref = ref.movedim(1, -1) if fmt[-1] == "C" else ref
    compare(F.local_response_norm(xs, size, 0.3, 0.6, 1.5, fmt), ref)
    close(xs.grad, xt.grad)
    layer = nn.LocalResponseNorm(size, 0.3, 0.6, 1.5, fmt)
    close(layer(tensor(x)), ref)


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
