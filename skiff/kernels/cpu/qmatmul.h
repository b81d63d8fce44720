// int8 matrix products with int32 accumulation, the compute of a quantized Linear:
//
//   out[m, n] = (sum_k x[m, k] * w[k, n]) * x_scale * w_scale[n] + bias[n]   (relu'd if asked)
//
// x int8 [..., K] (its leading dims are rows), w int8 [K, N], x_scale float32 [1], w_scale
// float32 [1] or [N] (per output channel), bias float32 [N] or empty; out float32
// [..., N]. The product runs on oneDNN's int8 matmul where the CPU has AVX-512 VNNI, else
// (and in generated code built without oneDNN) on int32 loops the compiler vectorises:
// oneDNN's int8 path without VNNI saturates 16-bit pair sums on full-range operands. Both
// are exact in the integer part.
//
//   kernels::quantized_matmul(xq, wq, x_scale, w_scale, bias, /*relu=*/false, &y);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

void quantized_matmul(const Tensor& x, const Tensor& w, const Tensor& x_scale,
                      const Tensor& w_scale, const Tensor& bias, bool relu, Tensor* out);

}  // namespace skiff::kernels
