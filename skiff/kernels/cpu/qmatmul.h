// int8 matrix products with int32 accumulation, the compute of a quantized Linear:
//
//   out[m, n] = (sum_k x[m, k] * w[k, n]) * x_scale * w_scale[n] + bias[n]   (relu'd if asked)
//
// x int8 [..., K] (its leading dims are rows), w int8 [K, N], x_scale float32 [1], w_scale
// float32 [1] or [N] (per output channel), bias float32 [N] or empty; out float32
// [..., N], or, given out_scale (float32 [1]), int8 requantized onto that grid (the next
// layer's input: quantize_linear of the float result, bit for bit). The products are exact
// int32 sums (int8_gemm.h; oneDNN's int8 matmul where the CPU has AVX-512 VNNI: without it
// oneDNN sums byte pairs in 16 bits, which saturates on full-range operands).
//
//   kernels::quantized_matmul(xq, wq, x_scale, w_scale, bias, /*relu=*/false, Tensor(), &y);
#pragma once

#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// A quantized layer's scales, checked (errors name `op` and the slot): `channel` = the
// input's scale (one float32, slot `x_slot`) times each of the weights' (float32 [1] or
// [channels], slot `w_slot`), one per output channel; `out` = OutScale's value, a positive
// finite float32, or 0 when out_scale is empty (float32 output).
struct QuantizedScales {
  std::vector<float> channel;
  float out = 0;
};
QuantizedScales quantized_scales(const char* op, const Tensor& x_scale, const char* x_slot,
                                 const Tensor& w_scale, const char* w_slot, int64_t channels,
                                 const Tensor& out_scale);

void quantized_matmul(const Tensor& x, const Tensor& w, const Tensor& x_scale,
                      const Tensor& w_scale, const Tensor& bias, bool relu, const Tensor& out_scale,
                      Tensor* out);

}  // namespace skiff::kernels
