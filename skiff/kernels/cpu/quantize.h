// Linear (affine) quantization of float tensors to integers and back, as ONNX's
// QuantizeLinear / DequantizeLinear and PyTorch's fake_quantize_per_{tensor,channel}_affine
// define it:
//
//   q = clamp(round(x / scale) + zero_point, qmin, qmax)     quantize
//   x' = (q - zero_point) * scale                            dequantize
//
// with one scale (and zero point) for the whole tensor, or one per index of `axis`
// (per channel): `scale` float32/float64 with one element or x.shape[axis]; `zero_point`
// any integer dtype with as many, or an empty tensor (zeros). `round_type` 0 rounds to
// nearest, ties to even (ONNX, PyTorch); 1 ties away from zero (Paddle's older fake-quant
// ops). A scale that is not positive and finite fails naming it.
//
//   kernels::quantize_linear(w, scale, Tensor(), /*axis=*/0, 0, DType::kI8, &q);  // int8
//   kernels::fake_quantize(x, scale, Tensor(), 0, -128, 127, 0, &y);   // x on the grid
//   kernels::fake_quantize_grad(x, scale, Tensor(), 0, -128, 127, 0, dy, &dx);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// v rounded to the nearest integer, ties to even (the default rounding mode's result of
// std::nearbyint) for |v| < 2^22, in float arithmetic the compiler vectorises (no libm call):
// adding and taking off 1.5 * 2^23 leaves no fraction bits. Beyond 2^22 the result keeps
// v's sign and magnitude within 2, enough for anything then clamped to a 16-bit range.
inline float round_half_even(float v) {
  constexpr float kShift = 12582912.f;  // 1.5 * 2^23
  return (v + kShift) - kShift;
}

// round_half_even(v) + zero clamped to [lo, hi]; NaN gives 0 (as cast's float-to-integer rule).
inline float round_to_grid(float v, float zero, float lo, float hi) {
  float r = round_half_even(v) + zero;
  r = r > lo ? r : lo;
  r = r < hi ? r : hi;
  return v == v ? r : 0.f;
}

// The range of an integer dtype (int8, uint8, int16, int32) as [qmin, qmax].
void quant_range(DType dtype, int64_t* qmin, int64_t* qmax);

// y (dtype `to`: int8, uint8, int16 or int32) = clamp(round(x / scale) + zero_point) to
// `to`'s range; NaN gives 0.
void quantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                     int64_t round_type, DType to, Tensor* y);
// y (dtype `to`, float32 or float64) = (x - zero_point) * scale, x any integer dtype.
void dequantize_linear(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                       DType to, Tensor* y);
// y = x quantized to [qmin, qmax] and dequantized, in x's dtype (float32 or float64).
void fake_quantize(const Tensor& x, const Tensor& scale, const Tensor& zero_point, int64_t axis,
                   int64_t qmin, int64_t qmax, int64_t round_type, Tensor* y);
// x_grad = y_grad where x's integer (before clamping) lies in [qmin, qmax], 0 elsewhere:
// the straight-through estimate of fake_quantize's gradient (PyTorch's).
void fake_quantize_grad(const Tensor& x, const Tensor& scale, const Tensor& zero_point,
                        int64_t axis, int64_t qmin, int64_t qmax, int64_t round_type,
                        const Tensor& y_grad, Tensor* x_grad);

}  // namespace skiff::kernels
