"""Linear, bilinear, Dropout, Embedding and the other layers and functions of
skiff/nn/functional/common.py and nn/layer/common.py: Linear and Bilinear against PyTorch
with the same weights (outputs and the gradients of inputs, weights and biases); Embedding
(dense and sparse gradients, padding_idx), one_hot, flatten, label_smooth,
cosine_similarity, pixel_shuffle; Dropout, Dropout1D/2D and AlphaDropout (training
statistics, gradients, eval behaviour, seeding)."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, set_param, tensor, torch_tensor


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_matches_torch(dtype):
    layer = nn.Linear(5, 3).to(dtype=dtype)
    ref = torch.nn.Linear(5, 3).to(getattr(torch, dtype))
    set_param(layer.weight, ref.weight.detach().numpy().T)  # Paddle keeps [in, out]
    set_param(layer.bias, ref.bias)
    x = rand(2, 4, 5, dtype=dtype)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    compare(layer(xs), ref(xt), dtype)
    close(xs.grad, xt.grad, dtype)
    close(layer.weight.grad, ref.weight.grad.T, dtype)
    close(layer.bias.grad, ref.bias.grad, dtype)


def test_linear_without_bias_and_functional():
    layer = nn.Linear(3, 2, bias_attr=False)
    assert layer.bias is None and len(layer.parameters()) == 1
    x = rand(4, 3, dtype="float32")
    w = rand(3, 2, dtype="float32", seed=1)
    b = rand(2, dtype="float32", seed=2)
    out = F.linear(tensor(x), tensor(w), tensor(b))
    close(out, x @ w + b, "float32")


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


@pytest.mark.parametrize("sparse", [False, True])
def test_embedding_matches_torch(sparse):
    layer = nn.Embedding(10, 4, padding_idx=2, sparse=sparse).double()
    ref = torch.nn.Embedding(10, 4, padding_idx=2).double()
    np.testing.assert_array_equal(layer.weight.numpy()[2], np.zeros(4))  # zeroed at creation
    set_param(layer.weight, ref.weight)
    ids = np.array([[1, 2, 5], [5, 9, 2]], "int64")
    out = layer(tensor(ids))
    close(out, ref(torch.tensor(ids)))
    w = rand(2, 3, 4, seed=3)
    skiff.sum(out * tensor(w)).backward()
    (ref(torch.tensor(ids)) * torch.tensor(w)).sum().backward()
    grad = layer.weight.grad
    assert grad._kind == ("selected_rows" if sparse else "dense")
    close(grad, ref.weight.grad)  # sparse gradients densify on numpy()
    assert grad.shape == [10, 4]


def test_embedding_negative_padding_idx_and_errors():
    layer = nn.Embedding(6, 3, padding_idx=-1)
    assert layer._padding_idx == 5
    out = layer(tensor(np.array([5, 0], "int64")))
    np.testing.assert_array_equal(out.numpy()[0], np.zeros(3))
    assert "padding_idx=5" in repr(layer)
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(skiff.Error):
        layer(tensor(np.array([6], "int64")))


def test_one_hot_and_flatten():
    hot = F.one_hot(tensor(np.array([[0, 2], [1, 1]], "int64")), 3)
    np.testing.assert_array_equal(hot.numpy(), np.eye(3)[[[0, 2], [1, 1]]])
    assert hot.dtype == "float32"
    x = rand(2, 3, 4, 5)
    assert nn.Flatten()(tensor(x)).shape == [2, 60]
    assert nn.Flatten(0, 1)(tensor(x)).shape == [6, 4, 5]
    assert F.flatten(tensor(x)).shape == [120]
    assert nn.Identity(3, foo=1)(tensor(x)).shape == [2, 3, 4, 5]


def test_dropout_training_statistics_and_gradient():
    x = np.ones([200, 100], "float32")
    xs = tensor(x, True)
    layer = nn.Dropout(0.3)
    out = layer(xs)
    v = out.numpy()
    kept = v != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(v[kept], 1 / 0.7, rtol=1e-6)
    skiff.sum(out).backward()
    np.testing.assert_allclose(xs.grad.numpy(), kept / 0.7, rtol=1e-6)


def test_dropout_eval_and_modes():
    x = rand(50, 40, dtype="float32")
    layer = nn.Dropout(0.4)
    layer.eval()
    np.testing.assert_array_equal(layer(tensor(x)).numpy(), x)
    down = nn.Dropout(0.4, mode="downgrade_in_infer")
    down.eval()
    np.testing.assert_allclose(down(tensor(x)).numpy(), x * 0.6, rtol=1e-6)
    down.train()
    v = down(tensor(np.ones_like(x))).numpy()
    assert set(np.unique(v)) <= {0.0, 1.0}  # no scaling in training
    np.testing.assert_array_equal(F.dropout(tensor(x), 0.0).numpy(), x)
    np.testing.assert_array_equal(F.dropout(tensor(x), 1.0).numpy(), np.zeros_like(x))
    with pytest.raises(ValueError):
        nn.Dropout(1.5)(tensor(x))
    with pytest.raises(ValueError):
        F.dropout(tensor(x), 0.5, mode="nope")


def test_dropout_takes_paddles_downscale_in_infer_name():
    x = rand(6, 5, dtype="float32")
    layer = nn.Dropout(0.3, mode="downscale_in_infer")  # Paddle's documented spelling
    layer.eval()
    np.testing.assert_allclose(layer(tensor(x)).numpy(), x * 0.7, rtol=1e-6)
    assert "mode=downscale_in_infer" in repr(layer)
    layer.train()
    v = layer(tensor(np.ones_like(x))).numpy()
    assert set(np.unique(v)) <= {0.0, 1.0}  # kept values unscaled in training


def test_dropout_inplace_writes_into_its_input():
    assert repr(nn.Dropout(0.3, True)) == \
        "Dropout(p=0.3, axis=None, mode=upscale_in_train, inplace=True)"  # Paddle's order
    x = tensor(np.ones([6, 5], "float32"))
    assert F.dropout(x, 0.5, inplace=True) is x
    assert set(np.unique(x.numpy())) <= {0.0, 2.0}
    y = tensor(np.ones([6, 5], "float32"))
    assert F.dropout(y, 0.4, training=False, mode="downscale_in_infer", inplace=True) is y
    np.testing.assert_allclose(y.numpy(), 0.6, rtol=1e-6)
    z = tensor(np.ones([6, 5], "float32"))
    assert F.dropout(z, 0.5, axis=1, inplace=True) is z
    assert (z.numpy() == z.numpy()[:1]).all()  # one draw per column
    leaf = tensor(np.ones([6, 5], "float32"))
    leaf.stop_gradient = False
    hidden = leaf * 1.0
    out = F.dropout(hidden, 0.5, inplace=True)
    skiff.sum(out).backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), out.numpy())  # the mask, scaled


def test_dropout_follows_skiff_seed():
    x = tensor(np.ones([30, 30], "float32"))
    skiff.seed(7)
    a = F.dropout(x, 0.5).numpy()
    b = F.dropout(x, 0.5).numpy()
    skiff.seed(7)
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), a)
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), b)
    assert not np.array_equal(a, b)


def test_dropout_along_an_axis_shares_the_draw():
    x = np.ones([8, 50, 6], "float32")
    out = F.dropout(tensor(x), 0.5, axis=1).numpy()
    # each of the 50 entries of axis 1 is kept or dropped for all of axes 0 and 2
    per_index = out.reshape(8, 50, 6).transpose(1, 0, 2).reshape(50, -1)
    assert all(len(np.unique(row)) == 1 for row in per_index)
    assert 0 < (per_index[:, 0] == 0).sum() < 50
    np.testing.assert_allclose(np.unique(out), [0.0, 2.0])


def test_alpha_dropout_keeps_mean_and_variance():
    skiff.seed(3)
    x = np.random.default_rng(0).normal(size=[400, 250]).astype("float32")
    out = nn.AlphaDropout(0.2)(tensor(x)).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    layer = nn.AlphaDropout(0.2)
    layer.eval()
    np.testing.assert_array_equal(layer(tensor(x)).numpy(), x)


def test_label_smooth_cosine_similarity_and_pixel_shuffle():
    import torch.nn.functional as TF
    from nn_reference import torch_tensor
    hot = np.eye(4)[[0, 3, 1]]
    np.testing.assert_allclose(F.label_smooth(tensor(hot), epsilon=0.2).numpy(),
                               hot * 0.8 + 0.05)
    prior = np.array([[0.1, 0.2, 0.3, 0.4]])
    np.testing.assert_allclose(F.label_smooth(tensor(hot), tensor(prior), 0.5).numpy(),
                               hot * 0.5 + prior * 0.5)
    a, b = rand(3, 5), rand(3, 5, seed=1)
    sa, sb, ta, tb = tensor(a, True), tensor(b, True), torch_tensor(a, True), torch_tensor(b, True)
    out, ref = nn.CosineSimilarity()(sa, sb), TF.cosine_similarity(ta, tb)
    close(out, ref)
    skiff.sum(out).backward()
    ref.sum().backward()
    close(sa.grad, ta.grad)
    x = rand(2, 8, 3, 2)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    out, ref = nn.PixelShuffle(2)(xs), TF.pixel_shuffle(xt, 2)
    close(out, ref)
    skiff.sum(out * tensor(x.reshape(2, 2, 6, 4))).backward()
    (ref * torch.tensor(x.reshape(2, 2, 6, 4))).sum().backward()
    close(xs.grad, xt.grad)
    nhwc = F.pixel_shuffle(tensor(x.transpose(0, 2, 3, 1)), 2, "NHWC")
    close(nhwc, ref.permute(0, 2, 3, 1))


def test_dropout2d_drops_whole_channels():
    x = np.ones([4, 30, 3, 3], "float32")
    out = nn.Dropout2D(0.5)(tensor(x)).numpy()
    per_channel = out.reshape(4, 30, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert 0 < (per_channel[:, :, 0] == 0).sum() < 120
    layer = nn.Dropout3D(0.5)
    layer.eval()
    x5 = np.ones([2, 3, 2, 2, 2], "float32")
    np.testing.assert_array_equal(layer(tensor(x5)).numpy(), x5)
    with pytest.raises(skiff.Error, match="dropout2d"):
        F.dropout2d(tensor(x5), 0.5)


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
