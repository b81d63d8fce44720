"""pairwise_distance, rms_norm, local_response_norm, pixel_unshuffle, channel_shuffle,
dropout1d, bilinear and the layers Silu, Softmax2D, Unflatten, PairwiseDistance,
PixelUnshuffle, ChannelShuffle, LocalResponseNorm, Bilinear, ParameterDict: against
PyTorch and Paddle, a static program, errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, compare, rand, set_param, tensor, torch_tensor
from static_twin import assert_static_matches_eager


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False),
                                       (float("inf"), False), (float("-inf"), True)])
def test_pairwise_distance_matches_torch(p, keepdim):
    (xs, xt), (ys, yt) = [(tensor(a, True), torch_tensor(a, True))
                          for a in (rand(4, 5), rand(4, 5, seed=1))]
    compare(F.pairwise_distance(xs, ys, p, 1e-6, keepdim),
            TF.pairwise_distance(xt, yt, p, 1e-6, keepdim))
    close(xs.grad, xt.grad)
    close(ys.grad, yt.grad)
    close(nn.PairwiseDistance(p, keepdim=keepdim)(tensor(rand(4, 5)), tensor(rand(4, 5, seed=1))),
          torch.nn.PairwiseDistance(p, keepdim=keepdim)(torch.tensor(rand(4, 5)),
                                                         torch.tensor(rand(4, 5, seed=1))))


def test_pairwise_distance_p0_and_1d():
    x, y = np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, 0.0, 3.0]])
    close(F.pairwise_distance(tensor(x), tensor(y), p=0, epsilon=0.0), [1.0])
    assert F.pairwise_distance(tensor(x[0]), tensor(y[0])).shape == []


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


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_pixel_unshuffle_and_channel_shuffle_match_paddle(fmt, paddle):
    x = rand(2, 8, 4, 6, dtype="float32")
    if fmt == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    close(F.pixel_unshuffle(tensor(x), 2, fmt),
          paddle.nn.functional.pixel_unshuffle(paddle.to_tensor(x), 2, fmt).numpy(), "float32")
    close(nn.ChannelShuffle(4, fmt)(tensor(x)),
          paddle.nn.functional.channel_shuffle(paddle.to_tensor(x), 4, fmt).numpy(), "float32")
    back = F.pixel_shuffle(nn.PixelUnshuffle(2, fmt)(tensor(x)), 2, fmt)
    close(back, x, "float32")
    with pytest.raises(ValueError, match="pixel_unshuffle.*divisible"):
        F.pixel_unshuffle(tensor(x), 5, fmt)
    with pytest.raises(ValueError, match="channel_shuffle.*divisible"):
        F.channel_shuffle(tensor(x), 3, fmt)


def test_bilinear_matches_torch():
    ours = nn.Bilinear(3, 4, 5).double()
    ref = torch.nn.Bilinear(3, 4, 5).double()
    assert ours.weight.shape == [5, 3, 4] and ours.bias.shape == [1, 5]
    set_param(ours.weight, ref.weight)
    set_param(ours.bias, ref.bias[None])
    (as_, at), (bs, bt) = [(tensor(a, True), torch_tensor(a, True))
                           for a in (rand(6, 3), rand(6, 4, seed=1))]
    compare(ours(as_, bs), ref(at, bt))
    close(as_.grad, at.grad)
    close(bs.grad, bt.grad)
    close(ours.weight.grad, ref.weight.grad)
    close(ours.bias.grad, ref.bias.grad[None])
    assert nn.Bilinear(3, 4, 5, bias_attr=False).bias is None
    with pytest.raises(ValueError, match="bilinear.*weight"):
        F.bilinear(as_, bs, tensor(rand(5, 4, 4)))


def test_dropout1d_drops_whole_channels():
    skiff.seed(2)
    x = np.ones((4, 16, 10))
    out = F.dropout1d(tensor(x), 0.5).numpy()
    per_channel = out.reshape(4, 16, 10)
    assert set(np.unique(per_channel)) == {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert F.dropout1d(tensor(x[0]), 0.5).shape == [16, 10]
    close(F.dropout1d(tensor(x), 0.5, training=False), x)
    with pytest.raises(ValueError, match="dropout1d.*2-D or 3-D"):
        F.dropout1d(tensor(rand(2, 3, 4, 5)))


def test_small_layers():
    assert nn.Silu is nn.SiLU
    x = rand(2, 3, 4, 5)
    close(nn.Softmax2D()(tensor(x)), torch.nn.Softmax2d()(torch.tensor(x)))
    with pytest.raises(ValueError, match="Softmax2D"):
        nn.Softmax2D()(tensor(rand(3, 4)))
    assert nn.Unflatten(1, [3, 1])(tensor(x)).shape == [2, 3, 1, 4, 5]
    assert nn.Unflatten(-1, (-1, 5, 1))(tensor(x)).shape == [2, 3, 4, 1, 5, 1]
    with pytest.raises(ValueError, match="Unflatten"):
        nn.Unflatten(1, [2, 2])(tensor(x))


def test_parameter_dict():
    a, b = skiff.create_parameter([2], "float32"), skiff.create_parameter([3], "float32")
    params = nn.ParameterDict({"a": a})
    params.update([("b", b)])
    params["c"] = skiff.create_parameter([1], "float32")
    assert list(params) == ["a", "b", "c"] and len(params) == 3
    assert params["b"] is b and len(params.parameters()) == 3
    holder = nn.Layer()
    holder.table = params
    assert [k for k, _ in holder.named_parameters()] == ["table.a", "table.b", "table.c"]
    with pytest.raises(TypeError, match="ParameterDict"):
        params["d"] = skiff.ones([2])
    with pytest.raises(ValueError, match="ParameterDict.update"):
        params.update([("x", a, b)])


def test_functions_in_a_static_program():
    feeds = {"x": rand(2, 8, 4, 4, dtype="float32"), "y": rand(2, 8, 4, 4, seed=1,
                                                              dtype="float32")}

    def fn(x, y):
        shuffled = F.channel_shuffle(F.pixel_unshuffle(x, 2), 4)
        dist = F.pairwise_distance(x, y, 3.0)
        out, _ = F.rms_norm(y, [4, 4])
        normed = F.local_response_norm(out, 3)
        return skiff.sum(shuffled) + skiff.sum(dist) + skiff.sum(normed * x)

    assert_static_matches_eager(fn, feeds, ["x", "y"], rtol=1e-4, atol=1e-5)
