// pool_planes_isa.h for AVX-512 (compiled with -march=x86-64-v4): float 2x2 windows,
// 16 outputs per step with masked loads and stores, so that short rows (14 or 7 outputs)
// run vectorised too.
#include <immintrin.h>

#include <algorithm>

#include "skiff/kernels/cpu/pool_planes_isa.h"

namespace skiff::kernels {
namespace {

struct Lanes2x2 {
  __m512 a, b, c, d;  // the window cells a b / c d of 16 outputs
};

struct Pairs {
  __m512 even, odd;
};

// Even and odd elements of the 32 floats at p (the first 2n of them; n <= 16).
inline Pairs split_pairs(const float* p, int n) {
  const __mmask16 lo = n >= 8 ? 0xffff : static_cast<__mmask16>((1u << (2 * n)) - 1);
  const __mmask16 hi = n > 8 ? static_cast<__mmask16>((1u << (2 * n - 16)) - 1) : 0;
  const __m512 v0 = _mm512_maskz_loadu_ps(lo, p);
  const __m512 v1 = _mm512_maskz_loadu_ps(hi, p + 16);
  const __m512i even_idx =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd_idx =
      _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return {_mm512_permutex2var_ps(v0, even_idx, v1), _mm512_permutex2var_ps(v0, odd_idx, v1)};
}

// Stores even[k] and odd[k] interleaved at p[2k], p[2k + 1] for k < n.
inline void join_pairs(float* p, int n, __m512 even, __m512 odd) {
  const __mmask16 lo = n >= 8 ? 0xffff : static_cast<__mmask16>((1u << (2 * n)) - 1);
  const __mmask16 hi = n > 8 ? static_cast<__mmask16>((1u << (2 * n - 16)) - 1) : 0;
  const __m512i lo_idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi_idx =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_mask_storeu_ps(p, lo, _mm512_permutex2var_ps(even, lo_idx, odd));
  _mm512_mask_storeu_ps(p + 16, hi, _mm512_permutex2var_ps(even, hi_idx, odd));
}

inline Lanes2x2 load_windows(const float* r0, const float* r1, int n) {
  const Pairs top = split_pairs(r0, n), bottom = split_pairs(r1, n);
  return {top.even, top.odd, bottom.even, bottom.odd};
}

inline __m512 window_max(const Lanes2x2& l) {
  // The zero-masked form: GCC 12 warns about the undefined pass-through of _mm512_max_ps.
  const __mmask16 all = 0xffff;
  return _mm512_maskz_max_ps(all, _mm512_maskz_max_ps(all, l.a, l.b),
                             _mm512_maskz_max_ps(all, l.c, l.d));
}

// The window offset (0, 1, w, w + 1) of each lane's first maximum m.
inline __m512i first_argmax(const Lanes2x2& l, __m512 m, int32_t w) {
  __m512i at = _mm512_set1_epi32(w + 1);
  at = _mm512_mask_mov_epi32(at, _mm512_cmp_ps_mask(l.c, m, _CMP_EQ_OQ), _mm512_set1_epi32(w));
  at = _mm512_mask_mov_epi32(at, _mm512_cmp_ps_mask(l.b, m, _CMP_EQ_OQ), _mm512_set1_epi32(1));
  return _mm512_mask_mov_epi32(at, _mm512_cmp_ps_mask(l.a, m, _CMP_EQ_OQ), _mm512_setzero_si512());
}

inline __mmask16 tail_mask(int n) {
  return n >= 16 ? 0xffff : static_cast<__mmask16>((1u << n) - 1);
}

}  // namespace

void plane_2x2(Avx512Isa, const PoolGeometry& g, const float* x, float* y, int32_t* mask) {
  const int32_t w = static_cast<int32_t>(g.w);
  const __m512i lane2 =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int64_t i = 0; i < g.oh; ++i) {
    const float* r0 = x + 2 * i * g.w;
    const float* r1 = r0 + g.w;
    for (int64_t j = 0; j < g.ow; j += 16) {
      const int n = static_cast<int>(std::min<int64_t>(16, g.ow - j));
      const __mmask16 k = tail_mask(n);
      const Lanes2x2 l = load_windows(r0 + 2 * j, r1 + 2 * j, n);
      if (!g.max) {
        // ((a + b) + c) + d, as the portable loop adds.
        const __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(l.a, l.b), l.c), l.d);
        _mm512_mask_storeu_ps(y + i * g.ow + j, k, _mm512_mul_ps(sum, _mm512_set1_ps(0.25f)));
        continue;
      }
      const __m512 m = window_max(l);
      _mm512_mask_storeu_ps(y + i * g.ow + j, k, m);
      if (mask) {
        const __m512i base = _mm512_set1_epi32(static_cast<int32_t>(2 * i * g.w + 2 * j));
        const __m512i at = _mm512_add_epi32(_mm512_add_epi32(base, lane2), first_argmax(l, m, w));
        _mm512_mask_storeu_epi32(mask + i * g.ow + j, k, at);
      }
    }
  }
}

void plane_grad_2x2(Avx512Isa, const PoolGeometry& g, const float* x, const float* dy,
                    const int32_t* mask, float* dx) {
  const int32_t w = static_cast<int32_t>(g.w);
  const __m512i lane2 =
      _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int64_t i = 0; i < g.oh; ++i) {
    float* d0 = dx + 2 * i * g.w;
    float* d1 = d0 + g.w;
    for (int64_t j = 0; j < g.ow; j += 16) {
      const int n = static_cast<int>(std::min<int64_t>(16, g.ow - j));
      const __m512 q = _mm512_maskz_loadu_ps(tail_mask(n), dy + i * g.ow + j);
      if (!g.max) {
        const __m512 quarter = _mm512_mul_ps(q, _mm512_set1_ps(0.25f));
        join_pairs(d0 + 2 * j, n, quarter, quarter);
        join_pairs(d1 + 2 * j, n, quarter, quarter);
        continue;
      }
      __m512i at;
      if (mask) {
        const __m512i base = _mm512_set1_epi32(static_cast<int32_t>(2 * i * g.w + 2 * j));
        at = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(tail_mask(n), mask + i * g.ow + j),
                              _mm512_add_epi32(base, lane2));
      } else {
        const Lanes2x2 l = load_windows(x + 2 * i * g.w + 2 * j, x + (2 * i + 1) * g.w + 2 * j, n);
        at = first_argmax(l, window_max(l), w);
      }
      auto routed = [&](int32_t offset) {
        return _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(at, _mm512_set1_epi32(offset)), q);
      };
      join_pairs(d0 + 2 * j, n, routed(0), routed(1));
      join_pairs(d1 + 2 * j, n, routed(w), routed(w + 1));
    }
  }
}

// int8: 32 outputs a step. The two rows' maxima, then each pair of bytes as one int16 lane
// (the left cell in its low byte): the larger of its two sign-extended halves.
void plane_max_2x2(Avx512Isa, const PoolGeometry& g, const int8_t* x, int8_t* y) {
  for (int64_t i = 0; i < g.oh; ++i) {
    const int8_t* r0 = x + 2 * i * g.w;
    const int8_t* r1 = r0 + g.w;
    for (int64_t j = 0; j < g.ow; j += 32) {
      const int n = static_cast<int>(std::min<int64_t>(32, g.ow - j));
      const __mmask64 in = n == 32 ? ~__mmask64{0} : (__mmask64{1} << (2 * n)) - 1;
      const __m512i v = _mm512_max_epi8(_mm512_maskz_loadu_epi8(in, r0 + 2 * j),
                                        _mm512_maskz_loadu_epi8(in, r1 + 2 * j));
      const __m512i left = _mm512_srai_epi16(_mm512_slli_epi16(v, 8), 8);
      const __m512i right = _mm512_srai_epi16(v, 8);
      const __mmask32 out = n == 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
      _mm512_mask_cvtepi16_storeu_epi8(y + i * g.ow + j, out, _mm512_max_epi16(left, right));
    }
  }
}

}  // namespace skiff::kernels
