"""box_coder, prior_box, yolo_box and yolo_loss (skiff/vision/ops) against paddle.vision.ops
on random inputs: both code types, normalized or pixel boxes, variances as a Tensor or a list,
prior layouts, iou_aware heads, yolo_loss's values and gradient (label smoothing, gt_score,
scale_x_y, ignored and invalid truths); bad inputs.

Where two truths fall on one cell and anchor, Paddle's yolo_loss adds both losses but its
backward keeps one truth's gradient; skiff gives the gradient of the loss, so gradients are
compared on truths in distinct cells."""
import numpy as np
import pytest

import skiff
from skiff.vision import ops


def _boxes(rng, shape):
    b = rng.random(shape + (4,)).astype("float32")
    b[..., 2:] += b[..., :2] + 0.1
    return b


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("variance", ["tensor", "list"])
def test_box_coder_matches_paddle(paddle, normalized, variance):
    rng = np.random.default_rng(0)
    prior, target = _boxes(rng, (6,)), _boxes(rng, (5,))
    var = rng.random((6, 4)).astype("float32") + 0.1
    pv, sv = ((paddle.to_tensor(var), skiff.to_tensor(var)) if variance == "tensor"
              else ([0.1, 0.2, 0.3, 0.4],) * 2)
    want = paddle.vision.ops.box_coder(paddle.to_tensor(prior), pv, paddle.to_tensor(target),
                                       box_normalized=normalized)
    got = ops.box_coder(skiff.to_tensor(prior), sv, skiff.to_tensor(target),
                        box_normalized=normalized)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    for axis in (0, 1):
        deltas = rng.random((6, 6, 4)).astype("float32") - 0.5
        want = paddle.vision.ops.box_coder(paddle.to_tensor(prior), pv, paddle.to_tensor(deltas),
                                           "decode_center_size", normalized, axis)
        got = ops.box_coder(skiff.to_tensor(prior), sv, skiff.to_tensor(deltas),
                            "decode_center_size", normalized, axis)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs", [
    dict(min_sizes=[2.0, 4.0], clip=True, flip=True),
    dict(min_sizes=[2.0, 5.0], max_sizes=[3.0, 8.0], aspect_ratios=[2.0, 3.0], flip=True,
         min_max_aspect_ratios_order=True, steps=[1.5, 2.0], offset=0.3),
    dict(min_sizes=3.0, max_sizes=[5.0], aspect_ratios=[1.0, 2.0], variance=[0.1, 0.2, 0.3, 0.4]),
])
def test_prior_box_matches_paddle(paddle, kwargs):
    feature, image = np.zeros((1, 3, 6, 9), "float32"), np.zeros((1, 3, 9, 12), "float32")
    want = paddle.vision.ops.prior_box(paddle.to_tensor(feature), paddle.to_tensor(image), **kwargs)
    got = ops.prior_box(skiff.to_tensor(feature), skiff.to_tensor(image), **kwargs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("iou_aware", [False, True])
@pytest.mark.parametrize("clip_bbox", [True, False])
def test_yolo_box_matches_paddle(paddle, iou_aware, clip_bbox):
    rng = np.random.default_rng(1)
    x = (rng.random((2, 2 * (7 + iou_aware), 5, 4)).astype("float32") - 0.5) * 3
    size = np.array([[40, 50], [30, 20]], "int32")
    args = ([10, 13, 16, 30], 2, 0.3, 8, clip_bbox)
    kwargs = dict(scale_x_y=1.2, iou_aware=iou_aware, iou_aware_factor=0.4)
    want = paddle.vision.ops.yolo_box(paddle.to_tensor(x), paddle.to_tensor(size), *args, **kwargs)
    got = ops.yolo_box(skiff.to_tensor(x), skiff.to_tensor(size), *args, **kwargs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5)


def _truths(rng, n, b, hw):
    """Ground truths in distinct cells (and one of no width)."""
    gt = np.zeros((n, b, 4), "float32")
    for i in range(n):
        cells = rng.choice(hw * hw, b, replace=False)
        gt[i, :, 0] = (cells % hw + rng.random(b)) / hw
        gt[i, :, 1] = (cells // hw + rng.random(b)) / hw
    gt[..., 2:] = rng.random((n, b, 2)) * 0.5 + 0.02
    gt[0, 1, 2] = 0.0
    return gt


@pytest.mark.parametrize("mask,smooth,scale,score,ignore", [
    ([0, 1], True, 1.0, False, 0.7), ([1, 2], False, 1.2, True, 0.5),
    ([0, 2], True, 1.0, True, 0.3)])
def test_yolo_loss_matches_paddle(paddle, mask, smooth, scale, score, ignore):
    rng = np.random.default_rng(2)
    n, b, hw, classes = 2, 6, 5, 3
    x = (rng.random((n, len(mask) * (5 + classes), hw, hw)).astype("float32") - 0.5) * 2
    gt = _truths(rng, n, b, hw)
    label = rng.integers(0, classes, (n, b)).astype("int32")
    gt_score = rng.random((n, b)).astype("float32") if score else None
    args = ([10, 13, 16, 30, 33, 23], mask, classes, ignore, 8)
    results = []
    for module, fn in ((paddle, paddle.vision.ops.yolo_loss), (skiff, ops.yolo_loss)):
        xt = module.to_tensor(x, stop_gradient=False)
        loss = fn(xt, module.to_tensor(gt), module.to_tensor(label), *args,
                  gt_score=None if gt_score is None else module.to_tensor(gt_score),
                  use_label_smooth=smooth, scale_x_y=scale)
        loss.sum().backward()
        results.append((loss.numpy(), xt.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-4, atol=1e-5)


def test_yolo_loss_under_to_static():
    rng = np.random.default_rng(3)
    x = skiff.to_tensor(rng.random((2, 14, 4, 4)).astype("float32"))
    gt = skiff.to_tensor(_truths(rng, 2, 3, 4))
    label = skiff.to_tensor(rng.integers(0, 2, (2, 3)).astype("int32"))

    def loss(a, g, k):
        return ops.yolo_loss(a, g, k, [10, 13, 16, 30], [0, 1], 2, 0.7, 8)

    np.testing.assert_allclose(skiff.jit.to_static(loss)(x, gt, label).numpy(),
                               loss(x, gt, label).numpy(), rtol=1e-6)


def test_bad_inputs_raise_clear_errors():
    prior = skiff.to_tensor(np.ones((3, 4), "float32"))
    with pytest.raises(ValueError, match="code_type must be one of"):
        ops.box_coder(prior, [1.0] * 4, prior, "center")
    with pytest.raises(TypeError, match="prior_box_var must be"):
        ops.box_coder(prior, None, prior)
    with pytest.raises(ValueError, match="target_box must be \\[N, M, 4\\] to decode"):
        ops.box_coder(prior, [1.0] * 4, prior, "decode_center_size")
    feature = skiff.to_tensor(np.ones((1, 3, 4, 4), "float32"))
    with pytest.raises(ValueError, match="max_size > its min_size"):
        ops.prior_box(feature, feature, [4.0], [2.0])
    with pytest.raises(ValueError, match="x must be \\[N, 14, H, W\\]"):
        ops.yolo_box(feature, skiff.to_tensor(np.ones((1, 2), "int32")), [10, 13, 16, 30],
                     2, 0.1, 8)
    x = skiff.to_tensor(np.ones((1, 14, 4, 4), "float32"))
    gt = skiff.to_tensor(np.ones((1, 2, 4), "float32"))
    label = skiff.to_tensor(np.ones((1, 2), "int32"))
    with pytest.raises(ValueError, match="anchor_mask must index"):
        ops.yolo_loss(x, gt, label, [10, 13, 16, 30], [0, 5], 2, 0.7, 8)
    with pytest.raises(ValueError, match="gt_label must be \\[N, B\\]"):
        ops.yolo_loss(x, gt, skiff.to_tensor(np.ones((1, 3), "int32")), [10, 13, 16, 30],
                      [0, 1], 2, 0.7, 8)
