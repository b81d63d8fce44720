"""roi_align, roi_pool and psroi_pool (skiff/vision/ops) against paddle.vision.ops: values
and gradients of x on random maps and boxes, several output sizes, scales, sampling ratios,
aligned or not, boxes spread over images by boxes_num; the layers; to_static; bad inputs.

Paddle's roi_align backward with aligned=True takes a box's extent as at least 1 (its forward
does not), so gradients are compared on boxes at least one cell wide."""
import numpy as np
import pytest

import skiff
from skiff.vision import ops


def _case(seed, n=2, c=3, h=10, w=12, counts=(2, 3), scale=1.0):
    rng = np.random.default_rng(seed)
    x = rng.random((n, c, h, w)).astype("float32")
    r = sum(counts)
    boxes = rng.random((r, 4)).astype("float32") * 8 / scale
    boxes[:, 2:] = boxes[:, :2] + (1.0 + rng.random((r, 2)).astype("float32") * 8) / scale
    return x, boxes, np.array(counts, "int32")


def _run(module, fn, x, boxes, num, weights, *args, **kwargs):
    """fn's output and x's gradient of sum(out * weights)."""
    xt = module.to_tensor(x, stop_gradient=False)
    out = fn(xt, module.to_tensor(boxes), module.to_tensor(num), *args, **kwargs)
    (out * module.to_tensor(weights)).sum().backward()
    return out.numpy(), xt.grad.numpy()


def _compare(paddle, name, x, boxes, num, *args, **kwargs):
    expected = getattr(paddle.vision.ops, name)(paddle.to_tensor(x), paddle.to_tensor(boxes),
                                                paddle.to_tensor(num), *args, **kwargs)
    weights = np.random.default_rng(7).random(expected.shape).astype("float32")
    want, want_grad = _run(paddle, getattr(paddle.vision.ops, name), x, boxes, num, weights,
                           *args, **kwargs)
    got, got_grad = _run(skiff, getattr(ops, name), x, boxes, num, weights, *args, **kwargs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("sampling_ratio", [-1, 1, 2])
@pytest.mark.parametrize("output_size,scale", [(3, 1.0), ((2, 4), 0.5)])
def test_roi_align_matches_paddle(paddle, aligned, sampling_ratio, output_size, scale):
    x, boxes, num = _case(1, scale=scale)
    _compare(paddle, "roi_align", x, boxes, num, output_size, scale, sampling_ratio, aligned)


def test_roi_align_boxes_beyond_the_map_and_thin_boxes(paddle):
    x, boxes, num = _case(2, counts=(4, 0, 2), n=3)
    boxes[0] = [-3.0, -2.0, 14.0, 15.0]     # beyond every edge
    boxes[1] = [3.0, 4.0, 3.2, 4.1]         # thinner than a cell (values only: see above)
    expected = paddle.vision.ops.roi_align(paddle.to_tensor(x), paddle.to_tensor(boxes),
                                           paddle.to_tensor(num), 2, sampling_ratio=-1)
    got = ops.roi_align(skiff.to_tensor(x), skiff.to_tensor(boxes), skiff.to_tensor(num), 2)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
    _compare(paddle, "roi_align", x, boxes[2:], np.array([2, 0, 2], "int32"), 2, 1.0, -1, False)


@pytest.mark.parametrize("output_size,scale", [(3, 1.0), ((4, 3), 0.6), (1, 1.5)])
def test_roi_pool_matches_paddle(paddle, output_size, scale):
    x, boxes, num = _case(3, scale=scale)
    _compare(paddle, "roi_pool", x, boxes, num, output_size, scale)


@pytest.mark.parametrize("output_size,scale", [(2, 1.0), ((2, 3), 0.6), (3, 1.3)])
def test_psroi_pool_matches_paddle(paddle, output_size, scale):
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    x, boxes, num = _case(4, c=2 * ph * pw, scale=scale)
    _compare(paddle, "psroi_pool", x, boxes, num, output_size, scale)


def test_layers_match_the_functions():
    x, boxes, num = _case(5, c=8)
    args = [skiff.to_tensor(a) for a in (x, boxes, num)]
    np.testing.assert_array_equal(ops.RoIAlign((2, 3), 0.5)(*args).numpy(),
                                  ops.roi_align(*args, (2, 3), 0.5).numpy())
    np.testing.assert_array_equal(ops.RoIAlign(2)(*args, aligned=False).numpy(),
                                  ops.roi_align(*args, 2, aligned=False).numpy())
    np.testing.assert_array_equal(ops.RoIPool(3, 0.7)(*args).numpy(),
                                  ops.roi_pool(*args, 3, 0.7).numpy())
    np.testing.assert_array_equal(ops.PSRoIPool(2)(*args).numpy(),
                                  ops.psroi_pool(*args, 2).numpy())


@pytest.mark.parametrize("name,kwargs", [("roi_align", {"sampling_ratio": 2}),
                                         ("roi_align", {}), ("roi_pool", {}),
                                         ("psroi_pool", {})])
def test_to_static_gives_the_eager_values_and_gradients(name, kwargs):
    x, boxes, num = _case(6, c=8)
    fn = getattr(ops, name)

    def run(a, b, k):
        return fn(a, b, k, 2, 1.0, **kwargs)

    results = []
    for f in (run, skiff.jit.to_static(run)):
        xt = skiff.to_tensor(x, stop_gradient=False)
        out = f(xt, skiff.to_tensor(boxes), skiff.to_tensor(num))
        out.sum().backward()
        results.append((out.numpy(), xt.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6, atol=1e-6)


def test_bad_inputs_raise_clear_errors():
    x, boxes, num = _case(8, c=8)
    xt, bt, nt = (skiff.to_tensor(a) for a in (x, boxes, num))
    with pytest.raises(ValueError, match="boxes_num .* sum to the number of boxes"):
        ops.roi_align(xt, bt, skiff.to_tensor(np.array([1, 1], "int32")), 2)
    with pytest.raises(ValueError, match="boxes must be 2-D"):
        ops.roi_pool(xt, skiff.to_tensor(boxes[:, :3]), nt, 2)
    with pytest.raises(ValueError, match="x must be 4-D"):
        ops.roi_align(skiff.to_tensor(x[0]), bt, nt, 2)
    with pytest.raises(ValueError, match="one count per image"):
        ops.roi_align(xt, bt, skiff.to_tensor(np.array([5], "int32")), 2)
    with pytest.raises(TypeError, match="boxes_num must be a int32 or int64"):
        ops.roi_align(xt, bt, skiff.to_tensor(num.astype("float32")), 2)
    with pytest.raises(ValueError, match="output_size"):
        ops.roi_pool(xt, bt, nt, 0)
    with pytest.raises(ValueError, match="multiple of output_size"):
        ops.psroi_pool(xt, bt, nt, 3)
    with pytest.raises(ValueError, match="spatial_scale must be > 0"):
        ops.roi_align(xt, bt, nt, 2, spatial_scale=0.0)
    with pytest.raises(TypeError, match="x must be a Tensor"):
        ops.roi_align(x, bt, nt, 2)
