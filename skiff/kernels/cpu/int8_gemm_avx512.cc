// int8_gemm_isa.h for AVX-512 without VNNI (compiled with -march=x86-64-v4): the loops of
// int8_gemm_avx512_loops.h with multiply-adds, 16 int32 columns a vector. Packing is
// AVX2's (int8_gemm_avx2.cc): the packed layout is the same. The transposed finish needs no
// VNNI: CPUs with it run this one too. GCC 12 reports the _mm*_undefined_* idiom inside its
// own conversion intrinsics as uninitialized, a known false positive silenced for this file
// (as in softmax_rows_avx512.cc).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <cmath>

#include "skiff/kernels/cpu/int8_gemm_avx512_loops.h"
#include "skiff/kernels/cpu/int8_gemm_isa.h"

namespace skiff::kernels {
namespace {

// v[i] (row i of a 16 x 16 block of 32-bit values) becomes column i: four rounds of
// shuffles, from pairs of lanes to whole 128-bit quarters. Inlined and unrolled, the block
// stays in registers.
__attribute__((always_inline)) inline void transpose16(__m512i (&v)[16]) {
  __m512i t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(v[i], v[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(v[i], v[i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 16; i += 4) {
    v[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    v[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    v[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    v[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  // v[4q + j] now holds columns j, j + 4, j + 8, j + 12 of rows 4q .. 4q + 3, a quarter each.
#pragma GCC unroll 2
  for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      t[h + j] = _mm512_shuffle_i32x4(v[h + j], v[h + 4 + j], 0x88);      // columns j, j + 8
      t[h + 4 + j] = _mm512_shuffle_i32x4(v[h + j], v[h + 4 + j], 0xdd);  // j + 4, j + 12
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0x88);
    v[8 + j] = _mm512_shuffle_i32x4(t[j], t[8 + j], 0xdd);
  }
}

// One vector of sums finished as int8_finish finishes each value: fma, relu keeping NaN,
// and for int8 clamp(round_half_even(v / out_scale)), NaN to 0; float bits or int32 lanes.
template <bool kBias, bool kRelu, bool kInt8, bool kMayBeNan>
__attribute__((always_inline)) inline __m512i finish_vector(__m512 sum, __m512 scale, __m512 bias,
                                                            __m512 out_scale) {
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  __m512 x = kBias ? _mm512_fmadd_ps(sum, scale, bias) : _mm512_mul_ps(sum, scale);
  if (!kInt8) {
    if (kRelu) x = _mm512_max_ps(_mm512_setzero_ps(), x);  // NaN stays (the second operand)
    return _mm512_castps_si512(x);
  }
  __m512 rounded = _mm512_roundscale_ps(_mm512_div_ps(x, out_scale), kNearest);
  if (kMayBeNan) rounded = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), rounded);
  // relu before rounding and a floor of 0 after it give the same integers.
  rounded = _mm512_max_ps(rounded, _mm512_set1_ps(kRelu ? 0.f : -128.f));
  rounded = _mm512_min_ps(rounded, _mm512_set1_ps(127.f));
  return _mm512_cvt_roundps_epi32(rounded, kNearest);
}

// Rows [r, r + count) x columns [j, j + cols) finished (acc at row r's sums) and stored
// transposed: one row's columns a vector, then the block transposed in registers.
template <bool kBias, bool kRelu, bool kInt8, bool kMayBeNan>
void finish_tile(const Int8Output& o, __m512 out_scale, int64_t rows, int64_t n, int64_t r,
                 int64_t count, int64_t j, int64_t cols, const int32_t* acc, void* out) {
  const __mmask16 col_mask = static_cast<__mmask16>((1u << cols) - 1);
  const __mmask16 row_mask = static_cast<__mmask16>((1u << count) - 1);
  const __m512 scale = _mm512_maskz_loadu_ps(col_mask, o.scale + j);
  const __m512 bias = kBias ? _mm512_maskz_loadu_ps(col_mask, o.bias + j) : _mm512_setzero_ps();
  __m512i v[16];
#pragma GCC unroll 16
  for (int t = 0; t < 16; ++t) {
    if (t >= count) {
      v[t] = _mm512_setzero_si512();
      continue;
    }
    const __m512 sum = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(col_mask, acc + t * n + j));
    v[t] = finish_vector<kBias, kRelu, kInt8, kMayBeNan>(sum, scale, bias, out_scale);
  }
  transpose16(v);
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) {  // a constant index: v stays in registers
    if (c >= cols) break;
    if (kInt8) {
      int8_t* to = static_cast<int8_t*>(out) + (j + c) * rows + r;
      _mm_mask_storeu_epi8(to, row_mask, _mm512_cvtepi32_epi8(v[c]));
    } else {
      float* to = static_cast<float*>(out) + (j + c) * rows + r;
      _mm512_mask_storeu_ps(to, row_mask, _mm512_castsi512_ps(v[c]));
    }
  }
}

// int8_finish's rows [r0, r1) in place: 16 columns a vector, the scale and bias per row
// (broadcast) or per column (loaded).
template <bool kPerRow, bool kBias, bool kRelu, bool kInt8, bool kMayBeNan>
void finish_rows(const Int8Output& o, __m512 out_scale, int64_t r0, int64_t r1, int64_t n,
                 const int32_t* acc, void* out) {
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t j = 0; j < n; j += 16) {
      const __mmask16 mask = static_cast<__mmask16>((1u << std::min<int64_t>(16, n - j)) - 1);
      const __m512 scale =
          kPerRow ? _mm512_set1_ps(o.scale[r]) : _mm512_maskz_loadu_ps(mask, o.scale + j);
      const __m512 bias = !kBias    ? _mm512_setzero_ps()
                          : kPerRow ? _mm512_set1_ps(o.bias[r])
                                    : _mm512_maskz_loadu_ps(mask, o.bias + j);
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(mask, acc + r * n + j));
      const __m512i v = finish_vector<kBias, kRelu, kInt8, kMayBeNan>(sum, scale, bias, out_scale);
      if (kInt8) {
        _mm512_mask_cvtepi32_storeu_epi8(static_cast<int8_t*>(out) + r * n + j, mask, v);
      } else {
        _mm512_mask_storeu_ps(static_cast<float*>(out) + r * n + j, mask, _mm512_castsi512_ps(v));
      }
    }
  }
}

template <bool kBias, bool kRelu, bool kInt8, bool kMayBeNan>
void finish_transposed(const Int8Output& o, __m512 out_scale, int64_t rows, int64_t n, int64_t r0,
                       int64_t r1, const int32_t* acc, void* out) {
  for (int64_t r = r0; r < r1; r += 16) {
    const int64_t count = std::min<int64_t>(16, r1 - r);
    for (int64_t j = 0; j < n; j += 16) {
      finish_tile<kBias, kRelu, kInt8, kMayBeNan>(o, out_scale, rows, n, r, count, j,
                                                  std::min<int64_t>(16, n - j), acc + (r - r0) * n,
                                                  out);
    }
  }
}

using FinishTransposed = void (*)(const Int8Output&, __m512, int64_t, int64_t, int64_t, int64_t,
                                  const int32_t*, void*);
using FinishRows = void (*)(const Int8Output&, __m512, int64_t, int64_t, int64_t, const int32_t*,
                            void*);

// The instance of `kFlags.size()` flags ({per row,} bias, relu, int8, may be NaN), chosen
// one flag at a time.
template <typename Fn, size_t kCount, bool... kFlags>
Fn pick(const bool (&flags)[kCount]) {
  if constexpr (sizeof...(kFlags) == kCount) {
    if constexpr (kCount == 4) {
      return finish_transposed<kFlags...>;
    } else {
      return finish_rows<kFlags...>;
    }
  } else {
    return flags[sizeof...(kFlags)] ? pick<Fn, kCount, kFlags..., true>(flags)
                                    : pick<Fn, kCount, kFlags..., false>(flags);
  }
}

bool finite(const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

// Whether a NaN can arise: finite scales and biases (`count` of each from `first`) give
// none (infinities clamp), and the NaN check goes then.
bool may_be_nan(const Int8Output& o, int64_t first, int64_t count) {
  return o.out_scale > 0 &&
         !(finite(o.scale + first, count) && (!o.bias || finite(o.bias + first, count)));
}

// The vector of o.out_scale (of 1 for a float32 output, where it is not used).
__m512 out_scale_of(const Int8Output& o) {
  return _mm512_set1_ps(o.out_scale > 0 ? o.out_scale : 1.f);
}

}  // namespace

void int8_finish_transposed(Avx512Isa, const Int8Output& o, int64_t rows, int64_t n, int64_t r0,
                            int64_t r1, const int32_t* acc, void* out) {
  const bool flags[4] = {o.bias != nullptr, o.relu, o.out_scale > 0, may_be_nan(o, 0, n)};
  pick<FinishTransposed>(flags)(o, out_scale_of(o), rows, n, r0, r1, acc, out);
}

void int8_finish_rows(Avx512Isa, const Int8Output& o, int64_t r0, int64_t r1, int64_t n,
                      const int32_t* acc, void* out) {
  const bool nan = o.per_row ? may_be_nan(o, r0, r1 - r0) : may_be_nan(o, 0, n);
  const bool flags[5] = {o.per_row, o.bias != nullptr, o.relu, o.out_scale > 0, nan};
  pick<FinishRows>(flags)(o, out_scale_of(o), r0, r1, n, acc, out);
}

void int8_pairs(Avx512Isa, const int16_t* a, int64_t m, int64_t groups, const int16_t* b,
                int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  int8_avx512::pairs<false>(a, m, groups, b, p0, p1, n, c, ldc);
}

void int8_quads(Avx512Isa, const int8_t* a, int64_t m, int64_t groups, const int8_t* b,
                bool b_unsigned, int64_t p0, int64_t p1, int64_t n, int32_t* c, int64_t ldc) {
  int8_avx512::quads<false>(a, m, groups, b, b_unsigned, p0, p1, n, c, ldc);
}

void int8_rows(Avx512Isa, const int8_t* a, int64_t m, int64_t k, const int8_t* b, int64_t n,
               int64_t j0, int64_t j1, int32_t* c) {
  int8_avx512::rows<false>(a, m, k, b, n, j0, j1, c);
}

}  // namespace skiff::kernels
