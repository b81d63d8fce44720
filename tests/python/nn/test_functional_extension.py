"""Functions of skiff.nn.functional checked against Paddle: affine_grid, temporal_shift,
gather_tree, npair_loss, class_center_sample (extension.py, affine_grid.py,
loss_metric.py, class_center.py), max_unpool3d, hsigmoid_loss's default tree for labels
past it, cross_entropy with label smoothing and dense labels, pad's pad_from_left_axis and
dropout's inplace / 'downscale_in_infer'."""
import numpy as np
import pytest

import skiff
import skiff.nn.functional as F

from paddle_pair import assert_same, run_both

paddle = pytest.importorskip("paddle")

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("shape,align", [([2, 1, 3, 4], False), ([2, 1, 3, 4], True),
                                         ([2, 1, 2, 3, 4], False), ([1, 1, 1, 5], False)])
def test_affine_grid(shape, align):
    dims = len(shape) - 2
    theta = RNG.standard_normal((shape[0], dims, dims + 1)).astype("float32")
    mine, ref = run_both(paddle, "affine_grid", [theta], grads=(0,), out_shape=shape,
                         align_corners=align)
    assert_same(mine, ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seg,ratio,fmt", [(3, 0.25, "NCHW"), (2, 0.4, "NHWC"),
                                           (6, 0.2, "NCHW")])
def test_temporal_shift(seg, ratio, fmt):
    x = RNG.standard_normal((6, 8, 2, 3)).astype("float32")
    mine, ref = run_both(paddle, "temporal_shift", [x], grads=(0,), seg_num=seg,
                         shift_ratio=ratio, data_format=fmt)
    assert_same(mine, ref, rtol=0, atol=0)


def test_gather_tree():
    ids = RNG.integers(0, 10, (5, 2, 3))
    parents = RNG.integers(0, 3, (5, 2, 3))
    mine, ref = run_both(paddle, "gather_tree", [ids, parents])
    assert_same(mine, ref)


def test_npair_loss():
    arrays = [RNG.standard_normal((7, 4)).astype("float32"),
              RNG.standard_normal((7, 4)).astype("float32"),
              np.array([1, 2, 1, 3, 3, 0, 1], "float32")]
    mine, ref = run_both(paddle, "npair_loss", arrays, grads=(0, 1), l2_reg=0.01)
    assert_same(mine, ref, rtol=1e-5, atol=1e-6)


def test_class_center_sample():
    label = skiff.to_tensor(np.array([17, 10, 5, 18, 8, 8, 19, 14, 10, 14], "int64"))
    remapped, sampled = F.class_center_sample(label, 20, 12)
    want_r, want_s = paddle.nn.functional.class_center_sample(paddle.to_tensor(label.numpy()),
                                                              20, 12)
    np.testing.assert_array_equal(remapped.numpy(), want_r.numpy())
    np.testing.assert_array_equal(sampled.numpy()[:7], want_s.numpy()[:7])  # the positives
    negatives = sampled.numpy()[7:]
    assert len(negatives) == 5 and len(set(negatives)) == 5
    assert not set(negatives) & set(label.numpy().tolist())
    r, s = F.class_center_sample(skiff.to_tensor(np.array([3, 1], "int32")), 5, 1)
    np.testing.assert_array_equal(s.numpy(), [1, 3])
    assert str(r.dtype).endswith("int32")
    with pytest.raises(ValueError, match="num_samples"):
        F.class_center_sample(label, 20, 30)
    with pytest.raises(ValueError, match="label must lie"):
        F.class_center_sample(label, 10, 5)


def test_max_unpool3d_and_layer():
    x = RNG.standard_normal((1, 2, 4, 4, 6)).astype("float32")
    results = []
    for lib in (skiff, paddle):
        t = lib.to_tensor(x)
        t.stop_gradient = False
        pooled, idx = lib.nn.functional.max_pool3d(t, kernel_size=2, stride=2,
                                                   return_mask=True)
        out = lib.nn.MaxUnPool3D(kernel_size=2)(pooled, idx)
        (out * out).sum().backward()
        results.append((out.numpy(), t.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_hsigmoid_labels_past_the_default_tree():
    inp = RNG.uniform(size=(4, 3)).astype("float32")
    weight = RNG.uniform(size=(4, 3)).astype("float32")
    label = np.array([0, 1, 4, 3], "int64")
    results = []
    for lib in (skiff, paddle):
        x, w = lib.to_tensor(inp), lib.to_tensor(weight)
        x.stop_gradient = w.stop_gradient = False
        out = lib.nn.functional.hsigmoid_loss(x, lib.to_tensor(label), 5, w)
        out.sum().backward()
        results.append([out.numpy(), x.grad.numpy(), w.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # Label 5 of 5 classes: heap node 10 reaches node 4, past the 4 weight rows; that slot
    # counts as unused (log 2), as Paddle's kernel gives for it: log 2 + path 1 (bit 1),
    # then node 0 (bit 0).
    got = F.hsigmoid_loss(skiff.to_tensor(inp), skiff.to_tensor(np.array([5, 5, 5, 5])), 5,
                          skiff.to_tensor(weight)).numpy()[:, 0]
    z1, z0 = inp @ weight[1], inp @ weight[0]
    want = np.log(2.0) + np.logaddexp(0, z1) - z1 + np.logaddexp(0, z0)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("soft_label", [False, True])
def test_cross_entropy_label_smoothing_with_dense_labels(soft_label):
    logits = RNG.uniform(0.1, 1.0, (4, 3))
    hot = np.eye(3, dtype="float64")[[1, 2, 0, 0]]
    if not soft_label:
        hot = hot.astype("float32")
    mine, ref = run_both(paddle, "cross_entropy", [logits, hot], grads=(0,),
                         label_smoothing=0.4, soft_label=soft_label)
    assert_same(mine, ref, rtol=1e-6, atol=1e-9)  # Paddle smooths a float32 label in float32
    loss = skiff.nn.CrossEntropyLoss(label_smoothing=0.4)
    hard = loss(skiff.to_tensor(logits), skiff.to_tensor(np.array([1, 2, 0, 0])))
    np.testing.assert_allclose(hard.numpy(), mine[0], rtol=1e-6)


@pytest.mark.parametrize("pad,kw", [([1, 0, 0, 1, 0, 0], dict(pad_from_left_axis=True)),
                                    ([1, 0, 0, 1, 0, 0], dict(pad_from_left_axis=False)),
                                    ([1, 0, 0, 1], {}), ([0, 0, 0, 0, 2, 3], {}),
                                    ([2, 3], dict(data_format="NCL"))])
def test_pad_constant_over_any_dims(pad, kw):
    x = np.arange(1, 4, dtype="float32").reshape(1, 1, 3)
    mine, ref = run_both(paddle, "pad", [x], grads=(0,), pad=pad, value=1.0, **kw)
    assert_same(mine, ref)


def test_dropout_inplace_and_modes():
    x = skiff.ones([2, 3])
    np.testing.assert_allclose(F.dropout(x, 0.5, training=False, mode="downscale_in_infer")
                               .numpy(), 0.5 * np.ones((2, 3)))
    y = skiff.ones([4, 5])
    out = F.dropout(y, 0.5, inplace=True)
    np.testing.assert_array_equal(y.numpy(), out.numpy())
    assert set(np.unique(out.numpy())) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="downscale_in_infer"):
        F.dropout(x, 0.5, mode="scale")
    layer = skiff.nn.Dropout(p=0.5, mode="downscale_in_infer")
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), 0.5 * np.ones((2, 3)))
    assert repr(skiff.nn.Dropout(0.5)) == repr(paddle.nn.Dropout(0.5))
