// Exact int8 matrix products, the compute of quantized Linear and Conv2D layers:
//
//   C[i, j] = sum_k A[i, k] * B[k, j]          A int8 [m, k], B int8 [k, n], C int32
//
// summed in int32 without rounding or saturation for any int8 values while k < 2^17. B is
// packed once (Int8PackedB, in panels of 16 columns) and multiplied by any number of A's,
// on the best instruction set the CPU has (portable loops elsewhere). With AVX2 the
// products are 16-bit multiply-adds of pairs (vpmaddwd: 16 products an instruction), or,
// when one operand holds no negative value (an input after relu, as most layers' inputs
// are), byte multiply-adds of the unsigned one with the signed one (vpmaddubsw: 32 products
// an instruction; exact, as 2 x 127 x 128 fits in 16 bits). Then int8_finish turns the sums
// into a layer's output: scaled per row or per column, bias added, relu, in float32 or
// requantized to int8.
//
//   const Int8Signs signs = non_negative(x, m * k) ? Int8Signs::kANonNegative
//                                                  : Int8Signs::kSigned;
//   Int8PackedB b(w, k, n, /*ldb=*/n, signs, /*parallel=*/true);
//   std::vector<int32_t> acc(m * n);
//   int8_gemm(x, /*lda=*/k, m, b, acc.data(), /*ldc=*/n, /*parallel=*/true);
//   int8_finish({scale, /*per_row=*/false, bias, /*relu=*/true, /*out_scale=*/0}, m, n,
//               acc.data(), y);  // y float32 [m, n]
#pragma once

#include <cstdint>
#include <vector>

namespace skiff::kernels {

// What the caller knows of the operands' signs (non_negative checks it): it picks the
// products (and B's packing).
enum class Int8Signs {
  kSigned,        // any values: 16-bit pairs
  kANonNegative,  // every A value >= 0: bytes, A unsigned
  kBNonNegative,  // every B value >= 0: bytes, B unsigned
};

// True when no value of x[0, n) is negative.
bool non_negative(const int8_t* x, int64_t n);

// B int8 [k, n] (row stride ldb) rearranged for the products: panel p holds columns
// [16p, 16p + 16) (zeros past n and past k). kSigned: for each pair of rows (2r, 2r + 1)
// the 16 columns' two values as int16, pairs[((p * groups + r) * 16 + j) * 2 + {0, 1}];
// otherwise for each quad of rows (4r .. 4r + 3) the 16 columns' four bytes,
// quads[((p * groups + r) * 16 + j) * 4 + {0, 1, 2, 3}].
struct Int8PackedB {
  static constexpr int64_t kPanel = 16;
  Int8PackedB() = default;
  Int8PackedB(const int8_t* b, int64_t k, int64_t n, int64_t ldb, Int8Signs signs, bool parallel) {
    pack(b, k, n, ldb, signs, parallel);
  }
  // Repacks (reusing the buffers) for another B; with `parallel`, threads take panels.
  void pack(const int8_t* b, int64_t k, int64_t n, int64_t ldb, Int8Signs signs, bool parallel);

  Int8Signs signs = Int8Signs::kSigned;
  int64_t k = 0, n = 0;
  int64_t depth = 2;   // rows a group: 2 (pairs) or 4 (quads)
  int64_t groups = 0;  // (k + depth - 1) / depth
  int64_t panels = 0;  // (n + 15) / 16
  std::vector<int16_t> pairs;
  std::vector<int8_t> quads;
};

// C[i, j] = sum_k A[i, k] * B[k, j] for i < m (A's rows lda apart, C's ldc apart), A's
// signs as packed B was told. With `parallel`, threads take B's panels (callers already
// splitting their work pass false).
void int8_gemm(const int8_t* a, int64_t lda, int64_t m, const Int8PackedB& b, int32_t* c,
               int64_t ldc, bool parallel);

// C [m, n] = A [m, k] · B [k, n] (rows k and n apart) for a few rows, B read as it lies:
// no packing, which would cost as much as the products (a batch of one); threads take
// column ranges.
void int8_gemm_rows(const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n, int32_t* c);

// What becomes of the sums: v = float(acc) * scale + bias (one rounding: fma), max(0, v)
// when relu; then float32 out, or, when out_scale > 0, int8 out =
// clamp(round_half_even(v / out_scale), -128, 127) (quantize_linear of the float result, bit
// for bit). scale and bias (bias may be null) hold one value per row (per_row: a
// convolution's output channels) or per column.
struct Int8Output {
  const float* scale = nullptr;
  bool per_row = false;
  const float* bias = nullptr;
  bool relu = false;
  float out_scale = 0;
};

// Writes rows [0, m) of `out` (float32 or int8 as `o` says; row stride n) from acc [m, n].
void int8_finish(const Int8Output& o, int64_t m, int64_t n, const int32_t* acc, void* out);

// The same for sums laid out the other way round, as an NHWC convolution gives them:
// rows [r0, r1) of out [n, rows] (NCHW) from acc [r1 - r0, n], their sums (a pixel's n
// channels side by side), with o's scale and bias per column (o.per_row is ignored). On
// the calling thread: callers split the rows.
void int8_finish_transposed(const Int8Output& o, int64_t rows, int64_t n, int64_t r0, int64_t r1,
                            const int32_t* acc, void* out);

}  // namespace skiff::kernels
