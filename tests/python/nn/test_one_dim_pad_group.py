"""1-D convolution and pooling, padding (functional, layers, conv padding modes), group
and instance norm, kl_div: values and gradients against PyTorch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, set_param, tensor, torch_tensor


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding=2, dilation=2),
                                dict(groups=2, padding=[1, 2])])
def test_conv1d_matches_torch(kw):
    layer = nn.Conv1D(4, 6, 3, **kw).double()
    tkw = dict(kw)
    pad = tkw.pop("padding", 0)
    ref = torch.nn.Conv1d(4, 6, 3, **tkw).double()
    assert layer.weight.shape == [6, 4 // kw.get("groups", 1), 3]
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 9)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    xin = TF.pad(xt, tuple(pad)) if isinstance(pad, list) else TF.pad(xt, (pad, pad))
    compare(layer(xs), ref(xin))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)


def test_conv1d_transpose_and_nlc():
    layer = nn.Conv1DTranspose(4, 6, 3, stride=2, padding=1, output_padding=1).double()
    ref = torch.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1).double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 5)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    w = rand(6, 4, 3, seed=2)
    nlc = F.conv1d(tensor(x.transpose(0, 2, 1)), tensor(w), padding=1, data_format="NLC")
    close(nlc, TF.conv1d(torch.tensor(x), torch.tensor(w), padding=1).permute(0, 2, 1))
    with pytest.raises(skiff.Error, match=r"conv1d.*3-D.*\[2, 4\]"):
        F.conv1d(tensor(rand(2, 4)), tensor(w))


def test_pool1d_matches_torch():
    x = rand(2, 3, 11)
    cases = [(nn.MaxPool1D(3, 2, 1), torch.nn.MaxPool1d(3, 2, 1)),
             (nn.AvgPool1D(2), torch.nn.AvgPool1d(2)),
             (nn.AvgPool1D(3, 2, 1, exclusive=False), torch.nn.AvgPool1d(3, 2, 1)),
             (nn.AdaptiveAvgPool1D(4), torch.nn.AdaptiveAvgPool1d(4)),
             (nn.AdaptiveMaxPool1D(5), torch.nn.AdaptiveMaxPool1d(5))]
    for ours, theirs in cases:
        xs, xt = tensor(x, True), torch_tensor(x, True)
        compare(ours(xs), theirs(xt))
        close(xs.grad, xt.grad)
    out, mask = F.max_pool1d(tensor(x), 2, return_mask=True)
    np.testing.assert_array_equal(mask.numpy(), TF.max_pool1d(torch.tensor(x), 2,
                                                              return_indices=True)[1].numpy())


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_torch(mode):
    x = rand(2, 3, 5, 6)
    pads = [1, 2, 3, 0]  # left, right, top, bottom
    xs, xt = tensor(x, True), torch_tensor(x, True)
    kw = {"value": 1.5} if mode == "constant" else {}
    compare(F.pad(xs, pads, mode, **kw), TF.pad(xt, tuple(pads), mode, **kw))
    close(xs.grad, xt.grad)
    x1 = rand(2, 3, 7)
    xs, xt = tensor(x1, True), torch_tensor(x1, True)
    compare(nn.Pad1D([2, 1], mode)(xs), TF.pad(xt, (2, 1), mode))
    close(xs.grad, xt.grad)


def test_pad_every_dim_channels_last_and_errors():
    x = rand(2, 3, 4)
    out = F.pad(tensor(x), [1, 0, 0, 2, 1, 1])
    close(out, np.pad(x, [(1, 0), (0, 2), (1, 1)]))
    nhwc = F.pad(tensor(rand(1, 4, 5, 2)), [1, 1, 2, 0], data_format="NHWC")
    assert nhwc.shape == [1, 6, 7, 2]
    assert nn.ZeroPad2D(2)(tensor(rand(1, 1, 3, 3))).shape == [1, 1, 7, 7]
    with pytest.raises(skiff.Error, match="reflect"):
        F.pad(tensor(rand(1, 1, 3, 3)), [3, 0, 0, 0], "reflect")
    with pytest.raises(ValueError, match="mode"):
        F.pad(tensor(x), [1, 1], "mirror")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_padding_modes_match_torch(mode):
    layer = nn.Conv2D(2, 3, 3, padding=1, padding_mode=mode).double()
    ref = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode).double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 2, 5, 4)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    conv1 = nn.Conv1D(2, 3, 3, padding=2, padding_mode=mode).double()
    ref1 = torch.nn.Conv1d(2, 3, 3, padding=2, padding_mode=mode).double()
    set_param(conv1.weight, ref1.weight)
    set_param(conv1.bias, ref1.bias)
    close(conv1(tensor(x[:, :, 0])), ref1(torch.tensor(x[:, :, 0])))


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


@pytest.mark.parametrize("reduction", ["none", "sum", "mean", "batchmean"])
def test_kl_div_matches_torch(reduction):
    logp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), size=3))
    target = np.random.default_rng(1).dirichlet(np.ones(4), size=3)
    target[0, 1] = 0.0  # a zero target contributes nothing
    xs, xt = tensor(logp, True), torch_tensor(logp, True)
    loss = nn.KLDivLoss(reduction)(xs, tensor(target))
    ref = TF.kl_div(xt, torch.tensor(target), reduction=reduction)
    close(loss, ref)
    skiff.sum(loss).backward()
    ref.sum().backward()
    close(xs.grad, xt.grad)
    log_t = F.kl_div(tensor(logp), tensor(np.log(target + 1e-3)), reduction, log_target=True)
    close(log_t, TF.kl_div(torch.tensor(logp), torch.tensor(np.log(target + 1e-3)),
                           reduction=reduction, log_target=True))


def test_square_error_cost():
    a, b = rand(3, 2), rand(3, 2, seed=1)
    close(F.square_error_cost(tensor(a), tensor(b)), (a - b) ** 2)
