"""conv3d / conv3d_transpose / 3-D pooling (functional and layers): values and gradients
against PyTorch, signatures against Paddle 3.3, a static-program check, errors."""
import inspect

import numpy as np
import paddle
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, set_param, tensor, torch_tensor
from static_twin import run_eager, run_in_program

CONV_CASES = [
    dict(stride=1, padding=1),
    dict(stride=[2, 1, 2], padding=[1, 0, 1], dilation=[1, 2, 1]),
    dict(stride=1, padding=[1, 0, 0, 1, 1, 1]),
    dict(stride=2, padding=1, groups=2),
]


def _torch_pad(xt, padding):
    """PyTorch pads symmetrically only: 6 paddings by TF.pad first."""
    if isinstance(padding, list) and len(padding) == 6:
        f, b, t, bo, le, r = padding
        return TF.pad(xt, (le, r, t, bo, f, b)), 0
    return xt, padding


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CONV_CASES)
def test_conv3d_matches_torch(case, dtype):
    groups = case.get("groups", 1)
    layer = nn.Conv3D(4, 6, 3, stride=case["stride"], padding=case["padding"],
                      dilation=case.get("dilation", 1), groups=groups)
    ref = torch.nn.Conv3d(4, 6, 3, stride=case["stride"], dilation=case.get("dilation", 1),
                          groups=groups).to(getattr(torch, dtype))
    if dtype == "float64":
        layer = layer.double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 6, 7, 6, dtype=dtype)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    xt_in, pad = _torch_pad(xt, case["padding"])
    out_t = TF.conv3d(xt_in, ref.weight, ref.bias, ref.stride, pad, ref.dilation, groups)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else {}
    compare(layer(xs), out_t, dtype, **tol)
    close(xs.grad, xt.grad, dtype, **tol)
    close(layer.weight.grad, ref.weight.grad, dtype, **tol)
    close(layer.bias.grad, ref.bias.grad, dtype, **tol)


def test_conv3d_same_valid_ndhwc_and_no_bias():
    x, w = rand(1, 3, 5, 6, 7), rand(4, 3, 3, 2, 3, seed=1)
    same = F.conv3d(tensor(x), tensor(w), stride=2, padding="SAME")
    assert list(same.shape) == [1, 4, 3, 3, 4]
    valid = F.conv3d(tensor(x), tensor(w), padding="VALID")
    close(valid, TF.conv3d(torch.tensor(x), torch.tensor(w)))
    ndhwc = F.conv3d(tensor(x.transpose(0, 2, 3, 4, 1)), tensor(w), padding=1,
                     data_format="NDHWC")
    close(ndhwc.numpy().transpose(0, 4, 1, 2, 3),
          TF.conv3d(torch.tensor(x), torch.tensor(w), padding=1))
    pairs = F.conv3d(tensor(x), tensor(w), padding=[[0, 0], [0, 0], [1, 1], [0, 0], [1, 1]])
    close(pairs, TF.conv3d(TF.pad(torch.tensor(x), (1, 1, 0, 0, 1, 1)), torch.tensor(w)))
    layer = nn.Conv3d(3, 4, 3, bias=False)
    assert layer.bias is None
    assert list(layer(tensor(x.astype("float32"))).shape) == [1, 4, 3, 4, 5]


def test_conv3d_padding_mode():
    layer = nn.Conv3D(2, 3, 3, padding=1, padding_mode="replicate").double()
    ref = torch.nn.Conv3d(2, 3, 3, padding=1, padding_mode="replicate").double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(1, 2, 4, 5, 4)
    close(layer(tensor(x)), ref(torch.tensor(x)))


TRANSPOSE_CASES = [
    dict(stride=1, padding=0),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=[2, 1, 2], padding=[1, 0, 1], dilation=[1, 2, 1], groups=2),
]


@pytest.mark.parametrize("case", TRANSPOSE_CASES)
def test_conv3d_transpose_matches_torch(case):
    groups = case.get("groups", 1)
    kwargs = dict(stride=case["stride"], padding=case["padding"],
                  output_padding=case.get("output_padding", 0),
                  dilation=case.get("dilation", 1), groups=groups)
    layer = nn.Conv3DTranspose(4, 6, 3, **kwargs).double()
    ref = torch.nn.ConvTranspose3d(4, 6, 3, **kwargs).double()
    set_param(layer.weight, ref.weight)
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 3, 4, 3)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt))
    close(xs.grad, xt.grad)
    close(layer.weight.grad, ref.weight.grad)
    close(layer.bias.grad, ref.bias.grad)


def test_conv3d_transpose_output_size():
    x, w = rand(1, 2, 3, 3, 3), rand(2, 3, 3, 3, 3, seed=1)
    out = F.conv3d_transpose(tensor(x), tensor(w), stride=2, padding=1, output_size=[6, 5, 6])
    ref = TF.conv_transpose3d(torch.tensor(x), torch.tensor(w), stride=2, padding=1,
                              output_padding=(1, 0, 1))
    close(out, ref)
    with pytest.raises(skiff.Error, match="conv3d_transpose: output_size"):
        F.conv3d_transpose(tensor(x), tensor(w), stride=2, padding=1, output_size=[9, 5, 5])


def _torch_pool_input(xt, padding, value):
    if isinstance(padding, list) and len(padding) == 6:
        f, b, t, bo, le, r = padding
        return TF.pad(xt, (le, r, t, bo, f, b), value=value), 0
    return xt, padding


POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=[2, 3, 2], stride=[1, 2, 2], padding=[1, 1, 0], ceil_mode=True),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", POOL_CASES)
def test_max_and_avg_pool3d_match_torch(case, dtype):
    x = rand(2, 3, 6, 7, 5, dtype=dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else {}
    for sk_fn, th_fn in ((F.max_pool3d, TF.max_pool3d), (F.avg_pool3d, TF.avg_pool3d)):
        xs, xt = tensor(x, True), torch_tensor(x, True)
        kw = dict(case)
        out_s = sk_fn(xs, **kw)
        kw.setdefault("stride", None)
        if th_fn is TF.avg_pool3d:
            kw["count_include_pad"] = False
        compare(out_s, th_fn(xt, **kw), dtype, **tol)
        close(xs.grad, xt.grad, dtype, **tol)


def test_avg_pool3d_inclusive_divisor_and_layers():
    x = rand(1, 2, 5, 6, 5)
    inclusive = nn.AvgPool3D(3, stride=2, padding=1, exclusive=False)(tensor(x))
    close(inclusive, TF.avg_pool3d(torch.tensor(x), 3, 2, 1, count_include_pad=True))
    div = F.avg_pool3d(tensor(x), 2, divisor_override=3)
    close(div, TF.avg_pool3d(torch.tensor(x), 2, divisor_override=3))
    out, mask = nn.MaxPool3D(2, return_mask=True)(tensor(x))
    ref, idx = TF.max_pool3d(torch.tensor(x), 2, return_indices=True)
    close(out, ref)
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())
    ndhwc = F.max_pool3d(tensor(x.transpose(0, 2, 3, 4, 1)), 2, data_format="NDHWC")
    close(ndhwc.numpy().transpose(0, 4, 1, 2, 3), ref)


@pytest.mark.parametrize("size", [[2, 3, 4], 3, [None, 2, 1], [5, 6, 5]])
def test_adaptive_pool3d_matches_torch(size):
    x = rand(2, 3, 5, 6, 5)
    for sk_layer, th_fn in ((nn.AdaptiveAvgPool3D, TF.adaptive_avg_pool3d),
                            (nn.AdaptiveMaxPool3D, TF.adaptive_max_pool3d)):
        xs, xt = tensor(x, True), torch_tensor(x, True)
        compare(sk_layer(size)(xs), th_fn(xt, size))
        close(xs.grad, xt.grad)
    out, mask = F.adaptive_max_pool3d(tensor(x), [2, 3, 2], return_mask=True)
    ref, idx = TF.adaptive_max_pool3d(torch.tensor(x), [2, 3, 2], return_indices=True)
    close(out, ref)
    np.testing.assert_array_equal(mask.numpy(), idx.numpy())


def test_static_program_matches_eager():
    w = rand(4, 3, 3, 3, 3, seed=2)
    x = rand(2, 3, 5, 6, 5)

    def fn(x):
        y = F.conv3d(x, skiff.to_tensor(w) if not skiff.in_dynamic_mode() else tensor(w),
                     padding=1)
        return F.adaptive_avg_pool3d(F.max_pool3d(y, 2, ceil_mode=True), [1, 2, 2])

    static = run_in_program(fn, {"x": x}, ["x"])
    eager = run_eager(fn, {"x": x}, ["x"])
    for a, b in zip(static, eager):
        close(a, b)


def test_errors_name_the_function_and_argument():
    x = tensor(rand(1, 3, 4, 4, 4))
    with pytest.raises(skiff.Error, match="conv3d: expected a 5-D input"):
        F.conv3d(tensor(rand(1, 3, 4, 4)), tensor(rand(2, 3, 3, 3, 3)))
    with pytest.raises(skiff.Error, match="conv3d: the input has 3 channels, expected 4"):
        F.conv3d(x, tensor(rand(2, 4, 3, 3, 3)))
    with pytest.raises(ValueError, match="conv3d: stride must be an int or 3 ints"):
        F.conv3d(x, tensor(rand(2, 3, 3, 3, 3)), stride=[1, 2])
    with pytest.raises(ValueError, match="max_pool3d: data_format"):
        F.max_pool3d(x, 2, data_format="NCHW")
    with pytest.raises(skiff.Error, match="pool3d"):
        F.max_pool3d(x, 5)
    with pytest.raises(ValueError, match="adaptive_avg_pool3d: output_size"):
        F.adaptive_avg_pool3d(x, [2, 2])
    with pytest.raises(ValueError, match="Conv3D: in_channels"):
        nn.Conv3D(3, 4, 3, groups=2)


NAMES = ["conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
         "adaptive_max_pool3d"]
LAYERS = ["Conv3D", "Conv3DTranspose", "MaxPool3D", "AvgPool3D", "AdaptiveAvgPool3D",
          "AdaptiveMaxPool3D", "Conv3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d"]


def _params(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", NAMES)
def test_functional_signatures_match_paddle(name):
    assert _params(getattr(F, name)) == _params(getattr(paddle.nn.functional, name))


@pytest.mark.parametrize("name", LAYERS)
def test_layer_signatures_match_paddle(name):
    assert _params(getattr(nn, name).__init__) == _params(getattr(paddle.nn, name).__init__)
