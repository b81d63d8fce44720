"""skiff's fake quantization against Paddle's fake_quantize_dequantize_abs_max and
fake_channel_wise_quantize_dequantize_abs_max (Paddle's threshold = the largest |x|, its
grid [-127, 127]): the same values for the scale threshold / 127, both roundings, and the
same straight-through gradient."""
import numpy as np
import pytest

import skiff
from skiff.quantization import fake_quantize

paddle = pytest.importorskip("paddle")
_C_ops = pytest.importorskip("paddle._C_ops")


def data(shape, seed):
    return (np.random.default_rng(seed).standard_normal(shape) * 2).astype(np.float32)


@pytest.mark.parametrize("round_type", [0, 1])
def test_per_tensor_matches_paddle(round_type):
    x = data([8, 9], 0)
    px = paddle.to_tensor(x, stop_gradient=False)
    want, threshold = _C_ops.fake_quantize_dequantize_abs_max(px, 8, round_type)
    want.sum().backward()
    sx = skiff.to_tensor(x, stop_gradient=False)
    scale = skiff.to_tensor(threshold.numpy().reshape(1) / np.float32(127))
    got = fake_quantize(sx, scale, quant_min=-127, quant_max=127, round_type=round_type)
    got.sum().backward()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(sx.grad.numpy(), px.grad.numpy())


@pytest.mark.parametrize("axis", [0, 1])
def test_per_channel_matches_paddle(axis):
    x = data([6, 7], 1)
    want, thresholds = _C_ops.fake_channel_wise_quantize_dequantize_abs_max(
        paddle.to_tensor(x), 8, 0, axis)
    got = fake_quantize(skiff.to_tensor(x),
                        skiff.to_tensor(thresholds.numpy() / np.float32(127)),
                        quant_min=-127, quant_max=127, axis=axis)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-6)
