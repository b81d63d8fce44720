"""Conv1D/Conv2D and their transposes (skiff/nn/functional/conv.py, conv1d.py, nn/layer/
conv.py) against PyTorch with the same weights: outputs and the gradients of inputs, weights
and biases; padding forms (same, valid, padding modes), NHWC/NLC layouts, output sizes and
errors naming the layer."""
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


CONV_CASES = [
    dict(stride=1, padding=0),
    dict(stride=2, padding=1),
    dict(stride=1, padding=[1, 2]),
    dict(stride=2, padding=[1, 0, 2, 1]),
    dict(stride=1, padding=2, dilation=2),
    dict(stride=1, padding=1, groups=2),
    dict(stride=[2, 1], padding=0, groups=2),
]


def _torch_conv_input(x, padding):
    """PyTorch pads symmetrically only: asymmetric [top, bottom, left, right] by F.pad."""
    if isinstance(padding, list) and len(padding) == 4:
        t, b, l, r = padding
        return TF.pad(x, (l, r, t, b)), 0
    return x, padding


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_torch(case):
    groups = case.get("groups", 1)
    layer = nn.Conv2D(4, 6, 3, stride=case["stride"], padding=case["padding"],
                      dilation=case.get("dilation", 1), groups=groups).double()
    ref = torch.nn.Conv2d(4, 6, 3, stride=case["stride"], dilation=case.get("dilation", 1),
                          groups=groups).double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 9, 8)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    xt_in, pad = _torch_conv_input(xt, case["padding"])
    out_t = TF.conv2d(xt_in, ref.weight, ref.bias, ref.stride, pad, ref.dilation, groups)
    compare(layer(xs), out_t)
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    close(layer.bias.grad, ref.bias.grad)


def test_conv2d_same_valid_and_nhwc():
    w = rand(5, 3, 3, 3, seed=3)
    x = rand(2, 3, 7, 6, seed=4)
    out = F.conv2d(tensor(x), tensor(w), stride=2, padding="SAME")
    assert out.shape == [2, 5, 4, 3]
    # SAME with stride 2 (as Paddle): 7 rows -> 4, padded 1 + 1; 6 columns -> 3, padded 0 + 1.
    ref = TF.conv2d(TF.pad(torch.tensor(x), (0, 1, 1, 1)), torch.tensor(w), stride=2)
    close(out, ref)
    close(F.conv2d(tensor(x), tensor(w), padding="VALID"), TF.conv2d(torch.tensor(x),
                                                                     torch.tensor(w)))
    nhwc = F.conv2d(tensor(x.transpose(0, 2, 3, 1)), tensor(w), padding=1, data_format="NHWC")
    close(nhwc, TF.conv2d(torch.tensor(x), torch.tensor(w), padding=1).permute(0, 2, 3, 1))
    layer = nn.Conv2D(3, 5, 3, padding=[[0, 0], [0, 0], [1, 1], [2, 2]]).double()
    assert layer(tensor(x)).shape == [2, 5, 7, 8]


TRANSPOSE_CASES = [
    dict(stride=1, padding=0),
    dict(stride=2, padding=1),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=2, padding=0, groups=2),
    dict(stride=1, padding=1, dilation=2),
]


@pytest.mark.parametrize("case", TRANSPOSE_CASES)
def test_conv2d_transpose_matches_torch(case):
    kw = dict(stride=case["stride"], padding=case["padding"], groups=case.get("groups", 1),
              dilation=case.get("dilation", 1), output_padding=case.get("output_padding", 0))
    layer = nn.Conv2DTranspose(4, 6, 3, **kw).double()
    ref = torch.nn.ConvTranspose2d(4, 6, 3, **kw).double()
    assert layer.weight.shape == list(ref.weight.shape)  # [in, out / groups, kh, kw] in both
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 5, 6)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    close(layer.bias.grad, ref.bias.grad)


def test_conv2d_transpose_output_size():
    layer = nn.Conv2DTranspose(2, 3, 3, stride=2, padding=1).double()
    x = tensor(rand(1, 2, 4, 4))
    assert layer(x).shape == [1, 3, 7, 7]
    assert layer(x, output_size=[8, 8]).shape == [1, 3, 8, 8]
    with pytest.raises(skiff.Error, match="output_size"):
        layer(x, output_size=[10, 10])


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


def test_conv_errors_name_the_layer():
    conv = nn.Conv2D(3, 4, 3)
    with pytest.raises(skiff.Error, match=r"Conv2D.*5 channels.*in_channels = 3"):
        conv(tensor(rand(1, 5, 8, 8, dtype="float32")))
    with pytest.raises(skiff.Error, match=r"Conv2D.*4-D.*\[8, 8\]"):
        conv(tensor(rand(8, 8, dtype="float32")))
    with pytest.raises(skiff.Error, match=r"Linear.*in_features = 3.*\[2, 4\]"):
        nn.Linear(3, 2)(tensor(rand(2, 4, dtype="float32")))
    with pytest.raises(ValueError, match="groups"):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2D(3, 3, 3, padding_mode="mirror")
