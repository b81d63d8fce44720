"""Padding (skiff/nn/functional/padding.py, nn/layer/padding.py): pad in every mode
against PyTorch (values and gradients, every dim, channels last), the fixed-mode padding
layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad in 1-D, 2-D and 3-D,
and their lower-case-d aliases) against PyTorch, layouts against Paddle, a static program,
and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager


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


def _torch_layer(kind, dims, padding, value=None):
    if kind == "Constant":
        return getattr(torch.nn, f"ConstantPad{dims}d")(padding, value)
    if kind == "Zero":
        return getattr(torch.nn, f"ConstantPad{dims}d")(padding, 0.0)
    return getattr(torch.nn, f"{kind}Pad{dims}d")(padding)


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kind", ["Zero", "Constant", "Reflection", "Replication", "Circular"])
def test_padding_layer_matches_torch(kind, dims):
    padding = [1, 2, 2, 0, 0, 1][:2 * dims]
    x = rand(2, 3, *([4] * dims))
    args = (padding, 1.5) if kind == "Constant" else (padding,)
    layer = getattr(nn, f"{kind}Pad{dims}D")(*args)
    assert getattr(nn, f"{kind}Pad{dims}d") is type(layer)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), _torch_layer(kind, dims, padding, 1.5)(xt))
    close(xs.grad, xt.grad)


def test_int_padding_and_channel_last_match_paddle(paddle):
    x = rand(1, 3, 4, 5, dtype="float32")
    for ours, theirs in [(nn.ReflectionPad2D(2), paddle.nn.ReflectionPad2D(2)),
                         (nn.ZeroPad2d([1, 0, 2, 1], data_format="NHWC"),
                          paddle.nn.ZeroPad2D([1, 0, 2, 1], data_format="NHWC")),
                         (nn.ConstantPad1D(2, -1.0, data_format="NLC"),
                          paddle.nn.ConstantPad1D(2, -1.0, data_format="NLC")),
                         (nn.CircularPad3D(1), paddle.nn.CircularPad3D(1))]:
        data = x if "3D" not in type(ours).__name__ else x[None]
        if "1D" in type(ours).__name__:
            data = x[0]
        close(ours(tensor(data)), theirs(paddle.to_tensor(data)).numpy(), "float32")
    assert "padding=[1, 1, 1, 1, 1, 1]" in repr(nn.ReplicationPad3D(1))


def test_padding_layers_in_a_static_program():
    layer = nn.ReplicationPad2D([1, 2, 0, 1])
    assert_static_matches_eager(lambda x: nn.ReflectionPad1D(2)(layer(x)[:, 0]),
                                {"x": rand(2, 3, 4, 5, dtype="float32")}, ["x"])


def test_padding_errors():
    with pytest.raises(Exception, match="reflect.*below"):
        nn.ReflectionPad1D(4)(tensor(rand(1, 2, 3)))
    with pytest.raises(TypeError):
        nn.ConstantPad2D(1)  # value is required
