"""deform_conv2d and DeformConv2D (skiff/vision/ops/deform_conv.py) against
paddle.vision.ops: outputs and the gradients of x, offset, mask, weight and bias over
strides, paddings, dilations, groups and deformable groups, offsets reaching past the map;
to_static; bad inputs."""
import numpy as np
import pytest

import skiff
from skiff.vision import ops

CASES = [
    # n, c, h, w, out, k, stride, padding, dilation, deformable_groups, groups, mask
    (2, 4, 7, 8, 6, 3, 1, 1, 1, 2, 2, True),
    (1, 3, 6, 6, 4, 2, 2, 0, 1, 1, 1, False),
    (2, 2, 9, 7, 2, 3, 1, 2, 2, 1, 2, True),
    (1, 2, 5, 5, 4, (1, 3), (1, 2), (0, 1), 1, 2, 1, True),
]


def _arrays(case, seed=0):
    n, c, h, w, co, k, s, p, d, dg, g, use_mask = case
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (s, s) if isinstance(s, int) else s
    pad_h, pad_w = (p, p) if isinstance(p, int) else p
    ho = (h + 2 * pad_h - (d * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pad_w - (d * (kw - 1) + 1)) // sw + 1
    rng = np.random.default_rng(seed)
    x = rng.random((n, c, h, w)).astype("float32")
    weight = rng.random((co, c // g, kh, kw)).astype("float32") - 0.5
    bias = rng.random((co,)).astype("float32")
    offset = (rng.random((n, 2 * dg * kh * kw, ho, wo)).astype("float32") - 0.5) * 6
    mask = rng.random((n, dg * kh * kw, ho, wo)).astype("float32") if use_mask else None
    return [x, offset, weight, bias, mask], dict(stride=s, padding=p, dilation=d,
                                                  deformable_groups=dg, groups=g)


def _run(module, fn, arrays, attrs, weights):
    tensors = [None if a is None else module.to_tensor(a, stop_gradient=False) for a in arrays]
    x, offset, weight, bias, mask = tensors
    out = fn(x, offset, weight, bias, mask=mask, **attrs)
    (out * module.to_tensor(weights)).sum().backward()
    return out.numpy(), [None if t is None else t.grad.numpy() for t in tensors]


@pytest.mark.parametrize("case", CASES)
def test_deform_conv2d_matches_paddle(paddle, case):
    arrays, attrs = _arrays(case)
    shape = paddle.vision.ops.deform_conv2d(
        *[paddle.to_tensor(a) for a in arrays[:4]], **attrs,
        mask=None if arrays[4] is None else paddle.to_tensor(arrays[4])).shape
    weights = np.random.default_rng(1).random(shape).astype("float32")
    want, want_grads = _run(paddle, paddle.vision.ops.deform_conv2d, arrays, attrs, weights)
    got, got_grads = _run(skiff, ops.deform_conv2d, arrays, attrs, weights)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for name, g, e in zip(("x", "offset", "weight", "bias", "mask"), got_grads, want_grads):
        if e is not None:
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4, err_msg=name)


def test_layer_and_to_static():
    arrays, _ = _arrays((2, 4, 7, 7, 3, 3, 1, 0, 1, 1, 1, True))
    layer = ops.DeformConv2D(4, 3, 3)
    assert list(layer.weight.shape) == [3, 4, 3, 3] and list(layer.bias.shape) == [3]
    x, offset, _, _, mask = (skiff.to_tensor(a) for a in arrays)
    eager = layer(x, offset, mask)
    np.testing.assert_array_equal(
        eager.numpy(), ops.deform_conv2d(x, offset, layer.weight, layer.bias, mask=mask).numpy())
    np.testing.assert_allclose(skiff.jit.to_static(layer)(x, offset, mask).numpy(),
                               eager.numpy(), rtol=1e-6, atol=1e-6)


def test_bad_inputs_raise_clear_errors():
    arrays, _ = _arrays((1, 4, 6, 6, 2, 3, 1, 0, 1, 1, 1, True))
    x, offset, weight, bias, mask = (skiff.to_tensor(a) for a in arrays)
    with pytest.raises(ValueError, match="offset must have shape"):
        ops.deform_conv2d(x, offset[:, :10], weight)
    with pytest.raises(ValueError, match="mask must have shape"):
        ops.deform_conv2d(x, offset, weight, mask=mask[:, :4])
    with pytest.raises(ValueError, match="channels but weight"):
        ops.deform_conv2d(x, offset, weight, groups=2)
    with pytest.raises(ValueError, match="multiple of deformable_groups"):
        ops.deform_conv2d(x, offset, weight, deformable_groups=3)
    with pytest.raises(ValueError, match="bias must have shape"):
        ops.deform_conv2d(x, offset, weight, bias=skiff.to_tensor(np.ones(3, "float32")))
    with pytest.raises(ValueError, match="stride must be >= 1"):
        ops.deform_conv2d(x, offset, weight, stride=0)
    with pytest.raises(ValueError, match="weight must be 4-D"):
        ops.deform_conv2d(x, offset, weight[0])
    with pytest.raises(ValueError, match="in_channels .* multiple of groups"):
        ops.DeformConv2D(3, 2, 3, groups=2)
    with pytest.raises(ValueError, match="out channels \\(2\\) must be a multiple of deformable"):
        x4 = skiff.to_tensor(np.ones((1, 3, 6, 6), "float32"))
        ops.deform_conv2d(x4, skiff.to_tensor(np.ones((1, 54, 4, 4), "float32")),
                          skiff.to_tensor(np.ones((2, 3, 3, 3), "float32")), deformable_groups=3)
