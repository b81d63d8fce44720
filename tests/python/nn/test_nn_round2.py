"""LP pooling, max unpooling, RReLU, FeatureAlphaDropout and MultiLabelMarginLoss:
values and gradients against PyTorch (LP pooling with padding against PaddlePaddle),
static programs equal to eager mode, and errors that name the argument."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn.functional as F
from static_twin import assert_static_matches_eager

rng = np.random.default_rng(7)


def _grad(fn, x):
    t = skiff.to_tensor(x)
    t.stop_gradient = False
    out = fn(t)
    skiff.sum(out * skiff.to_tensor(np.linspace(0.5, 1.5, out.size).reshape(out.shape)
                                    .astype(x.dtype))).backward()
    return out.numpy(), t.grad.numpy()


def _torch_grad(fn, x):
    t = torch.tensor(x, requires_grad=True)
    out = fn(t)
    w = torch.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(out.shape).astype(x.dtype))
    (out * w).sum().backward()
    return out.detach().numpy(), t.grad.numpy()


@pytest.mark.parametrize("p,kw", [(2.0, dict(kernel_size=2)), (3.0, dict(kernel_size=3, stride=2)),
                                  (1.5, dict(kernel_size=(2, 3), stride=(1, 2)))])
def test_lp_pool2d_matches_torch(p, kw):
    x = rng.random((2, 3, 7, 8)) + 0.1
    ours = _grad(lambda t: F.lp_pool2d(t, p, **kw), x)
    ref = _torch_grad(lambda t: torch.nn.functional.lp_pool2d(t, p, **kw), x)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_lp_pool1d_matches_torch_and_layers():
    x = rng.random((2, 3, 9)) + 0.1
    ours = _grad(lambda t: F.lp_pool1d(t, 2, 3, 2), x)
    ref = _torch_grad(lambda t: torch.nn.functional.lp_pool1d(t, 2, 3, 2), x)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    nlc = skiff.nn.LPPool1D(2, 3, 2, data_format="NLC")(skiff.to_tensor(x.transpose(0, 2, 1)))
    np.testing.assert_allclose(nlc.numpy().transpose(0, 2, 1), ref[0], rtol=1e-10)
    layer = skiff.nn.LPPool2d(2.0, 2)
    assert isinstance(layer, skiff.nn.LPPool2D)
    np.testing.assert_allclose(layer(skiff.to_tensor(x[..., None].repeat(2, 3))).numpy(),
                               torch.nn.functional.lp_pool2d(
                                   torch.tensor(x[..., None].repeat(2, 3)), 2, 2).numpy(),
                               rtol=1e-10)


def test_lp_pool2d_padding_ceil_mode_and_inf_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = (rng.random((2, 3, 7, 8)) + 0.1).astype("float32")
    cases = [(2.0, dict(kernel_size=3, stride=2, ceil_mode=True)),
             (2.0, dict(kernel_size=3, stride=2, padding=1)),
             (2.0, dict(kernel_size=3, stride=2, padding=[1, 0], ceil_mode=True)),
             (float("inf"), dict(kernel_size=2)), (3.0, dict(kernel_size=2))]
    for p, kw in cases:
        ref = paddle.nn.functional.lp_pool2d(paddle.to_tensor(x), p, **kw).numpy()
        ours = F.lp_pool2d(skiff.to_tensor(x), p, **kw).numpy()
        np.testing.assert_allclose(ours, ref, rtol=2e-6, err_msg=str(kw))


def test_lp_pool_static_and_errors():
    x = rng.random((2, 3, 6, 6)) + 0.1
    assert_static_matches_eager(lambda x: F.lp_pool2d(x, 2, 3, 2, padding=1), {"x": x}, ["x"])
    with pytest.raises(ValueError, match="norm_type"):
        F.lp_pool2d(skiff.to_tensor(x), 0, 2)
    with pytest.raises(ValueError, match="kernel_size"):
        F.lp_pool2d(skiff.to_tensor(x), 2, [2, 2, 2])
    with pytest.raises(ValueError, match="data_format"):
        F.lp_pool1d(skiff.to_tensor(x[:, :, 0]), 2, 2, data_format="NCHW")


@pytest.mark.parametrize("kernel,stride,padding", [(2, 2, 0), (3, 2, 1), (3, 1, 1)])
def test_max_unpool2d_matches_torch(kernel, stride, padding):
    x = rng.standard_normal((2, 3, 7, 6))
    pooled, mask = F.max_pool2d(skiff.to_tensor(x), kernel, stride, padding, return_mask=True)
    tp, ti = torch.nn.functional.max_pool2d(torch.tensor(x), kernel, stride, padding,
                                            return_indices=True)
    np.testing.assert_array_equal(mask.numpy(), ti.numpy())
    p = pooled.numpy()
    ours = _grad(lambda t: F.max_unpool2d(t, mask, kernel, stride, padding,
                                          output_size=[7, 6]), p)
    ref = _torch_grad(lambda t: torch.nn.functional.max_unpool2d(t, ti, kernel, stride,
                                                                 padding, [7, 6]), p)
    for a, b in zip(ours, ref):  # overlapping windows repeat indices: every copy gets grad
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_max_unpool_output_size_1d_layers_and_static():
    x = rng.standard_normal((2, 3, 9))
    pooled, mask = F.max_pool1d(skiff.to_tensor(x), 2, return_mask=True)
    tp, ti = torch.nn.functional.max_pool1d(torch.tensor(x), 2, return_indices=True)
    ours = skiff.nn.MaxUnPool1D(2, output_size=[9])(pooled, mask).numpy()
    ref = torch.nn.functional.max_unpool1d(tp, ti, 2, output_size=[9]).numpy()
    np.testing.assert_array_equal(ours, ref)
    assert skiff.nn.MaxUnpool2d is skiff.nn.MaxUnPool2D
    x2 = rng.standard_normal((2, 2, 4, 4))
    p2, m2 = F.max_pool2d(skiff.to_tensor(x2), 2, return_mask=True)
    eager = skiff.nn.MaxUnPool2D(2, output_size=[2, 2, 5, 5])(p2, m2).numpy()
    assert eager.shape == (2, 2, 5, 5)
    skiff.enable_static()
    try:
        import skiff.static as st
        main, startup = st.Program(), st.Program()
        with st.program_guard(main, startup):
            v = st.data("v", [2, 2, 2, 2], "float64")
            m = st.data("m", [2, 2, 2, 2], "int32")
            out = F.max_unpool2d(v, m, 2, output_size=[5, 5])
        got, = st.Executor().run(main, feed={"v": p2.numpy(), "m": m2.numpy()},
                                 fetch_list=[out])
    finally:
        skiff.disable_static()
    np.testing.assert_array_equal(got, eager)
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(p2, m2, 2, output_size=[9, 9])
    with pytest.raises(ValueError, match="indices"):
        F.max_unpool2d(p2, skiff.to_tensor(np.zeros((2, 2, 1, 2), "int32")), 2)
    with pytest.raises(ValueError, match="data_format"):
        F.max_unpool2d(p2, m2, 2, data_format="NHWC")


def test_rrelu_training_slopes_and_eval_mean():
    x = rng.standard_normal((4, 50))
    skiff.seed(3)
    t = skiff.to_tensor(x)
    t.stop_gradient = False
    out = F.rrelu(t, 0.1, 0.3)
    y = out.numpy()
    neg = x < 0
    slopes = y[neg] / x[neg]
    assert np.all(slopes >= 0.1) and np.all(slopes < 0.3) and slopes.std() > 0.01
    np.testing.assert_array_equal(y[~neg], x[~neg])
    skiff.sum(out).backward()
    g = t.grad.numpy()
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-12)
    np.testing.assert_array_equal(g[~neg], 1.0)
    layer = skiff.nn.RReLU(0.1, 0.3)
    layer.eval()
    ref = torch.nn.functional.rrelu(torch.tensor(x), 0.1, 0.3, training=False).numpy()
    np.testing.assert_allclose(layer(skiff.to_tensor(x)).numpy(), ref, rtol=1e-12)
    assert_static_matches_eager(lambda x: F.rrelu(x, training=False), {"x": x}, ["x"])
    with pytest.raises(ValueError, match="upper"):
        F.rrelu(t, 0.3, 0.1)
    with pytest.raises(TypeError, match="lower"):
        F.rrelu(t, 0, 0.3)


def test_feature_alpha_dropout_whole_channels_keep_moments():
    skiff.seed(5)
    x = rng.standard_normal((400, 8, 5))
    y = F.feature_alpha_dropout(skiff.to_tensor(x), 0.3).numpy()
    alpha_p = -1.7580993408473766
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * 0.3
    kept = np.isclose(y, a * x + b).all(axis=2)
    dropped = np.isclose(y, a * alpha_p + b).all(axis=2)
    assert np.all(kept ^ dropped)
    assert 0.2 < dropped.mean() < 0.4
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1.0) < 0.05
    layer = skiff.nn.FeatureAlphaDropout(0.3)
    layer.eval()
    np.testing.assert_array_equal(layer(skiff.to_tensor(x)).numpy(), x)
    assert np.all(F.feature_alpha_dropout(skiff.to_tensor(x), 1).numpy() == 0)
    with pytest.raises(ValueError, match="p must be"):
        F.feature_alpha_dropout(skiff.to_tensor(x), 1.5)
    with pytest.raises(ValueError, match="at least 2"):
        F.feature_alpha_dropout(skiff.to_tensor(x[0, 0]), 0.5)


def test_multi_label_margin_loss_matches_torch():
    x = rng.standard_normal((4, 5))
    label = np.array([[3, 0, -1, 1, 2], [1, 4, 0, -1, -1], [-1, 1, 1, 1, 1], [2, 2, 4, 0, 1]])
    for reduction in ("none", "mean", "sum"):
        ours = _grad(lambda t: F.multi_label_margin_loss(t, skiff.to_tensor(label), reduction)
                     .reshape([-1]), x)
        ref = _torch_grad(lambda t: torch.nn.functional.multilabel_margin_loss(
            t, torch.tensor(label), reduction=reduction).reshape(-1), x)
        for a, b in zip(ours, ref):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    layer = skiff.nn.MultiLabelMarginLoss("sum")
    np.testing.assert_allclose(layer(skiff.to_tensor(x), skiff.to_tensor(label)).numpy(),
                               torch.nn.functional.multilabel_margin_loss(
                                   torch.tensor(x), torch.tensor(label),
                                   reduction="sum").numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="reduction"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(label), "avg")
    with pytest.raises(ValueError, match="label must be 2-D"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(label[0]))
    with pytest.raises(TypeError, match="int32 or int64"):
        F.multi_label_margin_loss(skiff.to_tensor(x), skiff.to_tensor(x))


def test_multi_label_margin_loss_static():
    x = rng.standard_normal((3, 4))
    label = skiff.to_tensor(np.array([[1, 2, -1, 0], [0, -1, 1, 1], [3, 1, 0, 2]]))
    assert_static_matches_eager(lambda x: F.multi_label_margin_loss(x, label, "none"),
                                {"x": x}, ["x"])
