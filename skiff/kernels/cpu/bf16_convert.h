// Conversions between bfloat16 and float32 / float64, over arrays and whole tensors: the
// storage side of bfloat16 compute (oneDNN computes in bf16 with float32 accumulation;
// other bf16 kernels widen to float32, compute, and round once).
//
//   float_to_bf16(x, out, n);            // round to nearest, ties to even
//   Tensor w = widen_bf16(bf16_tensor);  // an exact float32 copy
//   round_to_bf16(w, &bf16_tensor);      // back, rounded
//
// Rounding is IEEE round-to-nearest-even everywhere: a NaN stays a quiet NaN of its sign,
// ±inf stays, overflow gives ±inf, and denormals round like any value (AVX-512 BF16's
// instruction flushes them to zero; the vector path here fixes such lanes up). float64
// rounds once: through float32 rounded to odd, which keeps the result correct.
#pragma once

#include <cmath>
#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The bfloat16 nearest `x` (one rounding, ties to even).
inline bfloat16 bf16_from_double(double x) {
  const float f = static_cast<float>(x);
  uint32_t u = bfloat16::float_bits(f);
  const double back = f;
  // Round to odd: truncate toward zero, and mark an inexact value in the last bit.
  u -= std::fabs(back) > std::fabs(x) ? 1u : 0u;
  u |= back != x ? 1u : 0u;
  return bfloat16::from_bits(bfloat16::round_from_float_bits(u));
}

// out[i] = bfloat16(x[i]) for i < n (rounded; vectorised).
void float_to_bf16(const float* x, bfloat16* out, int64_t n);
// out[i] = float(x[i]) for i < n (exact).
void bf16_to_float(const bfloat16* x, float* out, int64_t n);
// out[i] = bf16_from_double(x[i]) for i < n.
void double_to_bf16(const double* x, bfloat16* out, int64_t n);
// out[i] = double(x[i]) for i < n (exact).
void bf16_to_double(const bfloat16* x, double* out, int64_t n);

// A float32 tensor holding the values of the bfloat16 tensor `x` (exact; threads past a
// size threshold).
Tensor widen_bf16(const Tensor& x);
// out = x (float32) rounded to bfloat16, x's shape. `out` may be `x`.
void round_to_bf16(const Tensor& x, Tensor* out);

}  // namespace skiff::kernels
