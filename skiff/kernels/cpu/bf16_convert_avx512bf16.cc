// bf16_convert_isa.h for AVX-512 BF16 (compiled with -march=x86-64-v4 -mavx512bf16): 32
// floats a step through vcvtne2ps2bf16. The instruction flushes denormal inputs to zero; a
// block holding one (rare) is redone by the portable loop, as is the tail.
#include <immintrin.h>

#include <cstring>

#include "skiff/kernels/cpu/bf16_convert_isa.h"

namespace skiff::kernels {

void float_to_bf16(Avx512Bf16Isa, const float* x, bfloat16* out, int64_t n) {
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
      float_to_bf16(GenericIsa{}, x + i, out + i, 32);
      continue;
    }
    const __m512bh packed = _mm512_cvtne2ps_pbh(hi, lo);  // lo fills the low half
    std::memcpy(out + i, &packed, sizeof packed);
  }
  float_to_bf16(GenericIsa{}, x + i, out + i, n - i);
}

}  // namespace skiff::kernels
