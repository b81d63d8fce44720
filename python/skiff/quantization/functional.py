"""The quantization ops as functions (eager and static): x moved onto an integer grid
``q = clamp(round(x / scale) + zero_point, quant_min, quant_max)`` with one scale per
tensor or one per index of ``axis`` (per channel), rounding to nearest, ties to even.

    y = fake_quantize(x, scale)                       # float, on the int8 grid
    q = quantize_linear(w, w_scale, axis=1)           # int8 tensor
    w2 = dequantize_linear(q, w_scale, axis=1)        # float32 again
"""
from .. import _C_ops

__all__ = ["fake_quantize", "quantize_linear", "dequantize_linear"]


def fake_quantize(x, scale, zero_point=None, quant_min=-128, quant_max=127, axis=0,
                  round_type=0):
    """x quantized to [quant_min, quant_max] and dequantized (float, x's dtype): what
    quantization-aware training computes. The gradient is straight-through: the output's
    gradient where x's integer lies within the range, zero outside (PyTorch's
    fake_quantize_per_tensor_affine / per_channel_affine). ``scale`` (and ``zero_point``,
    integers) hold one value, or one per index of ``axis``."""
    return _C_ops.fake_quantize_dequantize(x, scale, zero_point, quant_min=int(quant_min),
                                           quant_max=int(quant_max), quant_axis=int(axis),
                                           round_type=int(round_type))


def quantize_linear(x, scale, zero_point=None, axis=0, dtype="int8", round_type=0):
    """The integers of x on the grid, as a ``dtype`` tensor (int8, uint8, int16, int32),
    saturated to its range (ONNX's QuantizeLinear). Not differentiable."""
    return _C_ops.quantize_linear(x, scale, zero_point, quant_axis=int(axis), out_dtype=str(dtype),
                                  round_type=int(round_type))


def dequantize_linear(x, scale, zero_point=None, axis=0, dtype="float32"):
    """``(x - zero_point) * scale`` for an integer tensor x, as ``dtype`` (ONNX's
    DequantizeLinear)."""
    return _C_ops.dequantize_linear(x, scale, zero_point, quant_axis=int(axis),
                                    out_dtype=str(dtype))
