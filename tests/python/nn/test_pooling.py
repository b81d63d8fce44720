"""1-D and 2-D pooling (skiff/nn/functional/pooling.py, conv1d.py, pooling_lp.py,
unpool.py and their layers) against PyTorch (and Paddle where their semantics differ):
max/avg/adaptive pooling with masks and NHWC, LP pooling (with padding against
PaddlePaddle), max unpooling; static programs equal to eager mode, and errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor, torch_weighted_grad, weighted_grad
from static_twin import assert_static_matches_eager


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


rng = np.random.default_rng(7)


@pytest.mark.parametrize("p,kw", [(2.0, dict(kernel_size=2)), (3.0, dict(kernel_size=3, stride=2)),
                                  (1.5, dict(kernel_size=(2, 3), stride=(1, 2)))])
def test_lp_pool2d_matches_torch(p, kw):
    x = rng.random((2, 3, 7, 8)) + 0.1
    ours = weighted_grad(lambda t: F.lp_pool2d(t, p, **kw), x)
    ref = torch_weighted_grad(lambda t: torch.nn.functional.lp_pool2d(t, p, **kw), x)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_lp_pool1d_matches_torch_and_layers():
    x = rng.random((2, 3, 9)) + 0.1
    ours = weighted_grad(lambda t: F.lp_pool1d(t, 2, 3, 2), x)
    ref = torch_weighted_grad(lambda t: torch.nn.functional.lp_pool1d(t, 2, 3, 2), x)
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
    ours = weighted_grad(lambda t: F.max_unpool2d(t, mask, kernel, stride, padding,
                                          output_size=[7, 6]), p)
    ref = torch_weighted_grad(lambda t: torch.nn.functional.max_unpool2d(t, ti, kernel, stride,
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
