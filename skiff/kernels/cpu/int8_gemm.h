// Exact int8 matrix products, the compute of quantized Linear and Conv2D layers:
//
//   C[i, j] = sum_k A[i, k] * B[k, j]          A int8 [m, k], B int8 [k, n], C int32
//
// summed in int32 without rounding or saturation for any int8 values while k < 2^17. B is
// packed once (Int8PackedB: pairs of its rows interleaved as int16, in panels of 16
// columns) and multiplied by any number of A's; the products run on the best instruction
// set the CPU has (AVX2's 16-bit multiply-add of pairs into int32, vpmaddwd, and portable
// loops elsewhere). Then int8_finish turns the sums into a layer's output: scaled per row or
// per column, bias added, relu, in float32 or requantized to int8.
//
//   Int8PackedB b(w, k, n, /*ldb=*/n);
//   std::vector<int32_t> acc(m * n);
//   int8_gemm(x, /*lda=*/k, m, b, acc.data(), /*ldc=*/n, /*parallel=*/true);
//   int8_finish({scale, /*per_row=*/false, bias, /*relu=*/true, /*out_scale=*/0}, m, n,
//               acc.data(), y);  // y float32 [m, n]
#pragma once

#include <cstdint>
#include <vector>

namespace skiff::kernels {

// B int8 [k, n] (row stride ldb) rearranged for the products: panel p holds columns
// [16p, 16p + 16) (zeros past n), and within it, for each pair of rows (2r, 2r + 1), the
// 16 columns' values interleaved as int16: data[((p * k2 + r) * 16 + j) * 2 + {0, 1}].
struct Int8PackedB {
  static constexpr int64_t kPanel = 16;
  Int8PackedB() = default;
  Int8PackedB(const int8_t* b, int64_t k, int64_t n, int64_t ldb) { pack(b, k, n, ldb); }
  // Repacks (reusing the buffer) for another B.
  void pack(const int8_t* b, int64_t k, int64_t n, int64_t ldb);

  int64_t k = 0, n = 0;
  int64_t k2 = 0;      // pairs of rows: (k + 1) / 2
  int64_t panels = 0;  // (n + 15) / 16
  std::vector<int16_t> data;
};

// C[i, j] = sum_k A[i, k] * B[k, j] for i < m (A's rows lda apart, C's ldc apart). With
// `parallel`, threads take B's panels (callers already splitting their work pass false).
void int8_gemm(const int8_t* a, int64_t lda, int64_t m, const Int8PackedB& b, int32_t* c,
               int64_t ldc, bool parallel);

// What becomes of the sums: v = float(acc) * scale + bias, max(0, v) when relu; then float32
// out, or, when out_scale > 0, int8 out = clamp(round_half_even(v / out_scale), -128, 127)
// (quantize_linear of the float result, bit for bit). scale and bias (bias may be null)
// hold one value per row (per_row: a convolution's output channels) or per column.
struct Int8Output {
  const float* scale = nullptr;
  bool per_row = false;
  const float* bias = nullptr;
  bool relu = false;
  float out_scale = 0;
};

// Writes rows [0, m) of `out` (float32 or int8 as `o` says; row stride n) from acc [m, n].
void int8_finish(const Int8Output& o, int64_t m, int64_t n, const int32_t* acc, void* out);

}  // namespace skiff::kernels
