#include "skiff/kernels/cpu/bf16_convert.h"

#include <cstring>

#include "skiff/core/parallel.h"

#if defined(__AVX512BF16__) && defined(__AVX512F__)
#include <immintrin.h>
#define SKIFF_BF16_INSTRUCTIONS 1
#endif

namespace skiff::kernels {
namespace {

// The portable loop: integer rounding on the float bits, branch-free, so the compiler
// vectorises it on any target.
void float_to_bf16_portable(const float* x, bfloat16* out, int64_t n) {
  const uint32_t* in = reinterpret_cast<const uint32_t*>(x);
  uint16_t* o = reinterpret_cast<uint16_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = bfloat16::round_from_float_bits(in[i]);
}

#ifdef SKIFF_BF16_INSTRUCTIONS
// 32 floats a step through vcvtne2ps2bf16. The instruction flushes denormal inputs to
// zero; a block holding one (rare) is redone by the portable loop.
void float_to_bf16_avx512(const float* x, bfloat16* out, int64_t n) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const __m512i largest_denormal = _mm512_set1_epi32(0x007fffff);
  const __m512i one = _mm512_set1_epi32(1);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(x + i), hi = _mm512_loadu_ps(x + i + 16);
    // 1 <= |bits| <= largest denormal  <=>  |bits| - 1 <= largest denormal - 1 (unsigned).
    const __m512i lo_abs = _mm512_and_si512(_mm512_castps_si512(lo), abs_mask);
    const __m512i hi_abs = _mm512_and_si512(_mm512_castps_si512(hi), abs_mask);
    const __mmask16 denormal =
        _mm512_cmp_epu32_mask(_mm512_sub_epi32(lo_abs, one), largest_denormal, _MM_CMPINT_LT) |
        _mm512_cmp_epu32_mask(_mm512_sub_epi32(hi_abs, one), largest_denormal, _MM_CMPINT_LT);
    if (__builtin_expect(denormal != 0, 0)) {
      float_to_bf16_portable(x + i, out + i, 32);
      continue;
    }
    const __m512bh packed = _mm512_cvtne2ps_pbh(hi, lo);  // lo fills the low half
    std::memcpy(out + i, &packed, sizeof packed);
  }
  float_to_bf16_portable(x + i, out + i, n - i);
}
#endif

// Calls fn(begin, end) over [0, n), on threads for large arrays.
template <typename Fn>
void chunks(int64_t n, Fn&& fn) {
  parallel_for(n, kParallelGrain, fn);
}

}  // namespace

void float_to_bf16(const float* x, bfloat16* out, int64_t n) {
#ifdef SKIFF_BF16_INSTRUCTIONS
  float_to_bf16_avx512(x, out, n);
#else
  float_to_bf16_portable(x, out, n);
#endif
}

void bf16_to_float(const bfloat16* x, float* out, int64_t n) {
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
  uint32_t* o = reinterpret_cast<uint32_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint32_t>(in[i]) << 16;
}

void double_to_bf16(const double* x, bfloat16* out, int64_t n) {
  uint16_t* o = reinterpret_cast<uint16_t*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = bf16_from_double(x[i]).bits;
}

void bf16_to_double(const bfloat16* x, double* out, int64_t n) {
  const uint16_t* in = reinterpret_cast<const uint16_t*>(x);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(in[i]) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    out[i] = f;
  }
}

Tensor widen_bf16(const Tensor& x) {
  SKIFF_CHECK(x.dtype() == DType::kBF16, "widen_bf16: expected a bfloat16 tensor, got ",
              x.type_str());
  Tensor out = Tensor::empty(x.shape(), DType::kF32);
  const bfloat16* in = x.data<bfloat16>();
  float* o = out.data<float>();
  chunks(x.numel(), [&](int64_t b, int64_t e) { bf16_to_float(in + b, o + b, e - b); });
  return out;
}

void round_to_bf16(const Tensor& x, Tensor* out) {
  SKIFF_CHECK(x.dtype() == DType::kF32, "round_to_bf16: expected a float32 tensor, got ",
              x.type_str());
  if (out == &x) {
    Tensor rounded;
    round_to_bf16(x, &rounded);
    *out = std::move(rounded);
    return;
  }
  out->resize(x.shape(), DType::kBF16);
  const float* in = x.data<float>();
  bfloat16* o = out->data<bfloat16>();
  chunks(x.numel(), [&](int64_t b, int64_t e) { float_to_bf16(in + b, o + b, e - b); });
}

}  // namespace skiff::kernels
