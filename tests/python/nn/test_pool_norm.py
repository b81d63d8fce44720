"""Pooling and normalisation layers against PyTorch (and Paddle where their semantics
differ): outputs, input and parameter gradients, running statistics, train/eval."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, set_param, tensor, torch_tensor


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True),
                                dict(kernel_size=[2, 3], stride=[1, 2])])
def test_max_pool2d_matches_torch(kw):
    x = rand(2, 3, 7, 8)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(nn.MaxPool2D(**kw)(xs), torch.nn.MaxPool2d(**kw)(xt))
    close(xs.grad, xt.grad)


def test_max_pool2d_mask_and_nhwc():
    x = rand(1, 2, 4, 4)
    out, mask = F.max_pool2d(tensor(x), 2, return_mask=True)
    ref, idx = TF.max_pool2d(torch.tensor(x), 2, return_indices=True)
    close(out, ref)
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    nhwc = F.max_pool2d(tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC")
    close(nhwc, ref.permute(0, 2, 3, 1))


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=1, padding=1, exclusive=False),
                                dict(kernel_size=3, stride=2, ceil_mode=True)])
def test_avg_pool2d_matches_torch(kw):
    x = rand(2, 3, 7, 8)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    tkw = dict(kw)
    # Paddle's exclusive=True (the default) is PyTorch's count_include_pad=False.
    tkw["count_include_pad"] = not tkw.pop("exclusive", True)
    compare(nn.AvgPool2D(**kw)(xs), torch.nn.AvgPool2d(**tkw)(xt))
    close(xs.grad, xt.grad)


def test_avg_pool2d_divisor_override():
    x = rand(1, 1, 4, 4)
    out = F.avg_pool2d(tensor(x), 2, divisor_override=3)
    close(out, TF.avg_pool2d(torch.tensor(x), 2, divisor_override=3))


@pytest.mark.parametrize("size", [1, 3, [2, 5], [None, 2]])
def test_adaptive_pools_match_torch(size):
    x = rand(2, 3, 7, 9)
    tsize = tuple(size) if isinstance(size, list) else size
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(nn.AdaptiveAvgPool2D(size)(xs), torch.nn.AdaptiveAvgPool2d(tsize)(xt))
    close(xs.grad, xt.grad)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(nn.AdaptiveMaxPool2D(size)(xs), torch.nn.AdaptiveMaxPool2d(tsize)(xt))
    close(xs.grad, xt.grad)


def test_pool_errors_name_the_op():
    with pytest.raises(skiff.Error, match=r"max_pool2d.*4-D.*\[3, 4\]"):
        nn.MaxPool2D(2)(tensor(rand(3, 4)))
    with pytest.raises(skiff.Error, match=r"adaptive_avg_pool2d.*4-D"):
        nn.AdaptiveAvgPool2D(2)(tensor(rand(3, 4, 5)))


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
