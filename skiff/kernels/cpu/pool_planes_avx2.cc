// pool_planes_isa.h for AVX2 (compiled with -march=x86-64-v3): float 2x2 windows, 8 outputs
// per step with masked loads and stores, so that short rows (14 or 7 outputs) run
// vectorised too.
#include <immintrin.h>

#include <algorithm>

#include "skiff/kernels/cpu/pool_planes_isa.h"

namespace skiff::kernels {
namespace {

struct Lanes2x2 {
  __m256 a, b, c, d;  // the window cells a b / c d of 8 outputs
};

struct Pairs {
  __m256 even, odd;
};

// A lane mask of maskload / maskstore selecting the first n of 8 lanes (none when n <= 0).
inline __m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 64-bit chunks 0, 2, 1, 3 of v: undoes the lane split of _mm256_shuffle_ps.
inline __m256 chunks_0213(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}

// Even and odd elements of the 16 floats at p (the first 2n of them; n <= 8).
inline Pairs split_pairs(const float* p, int n) {
  const __m256 v0 = _mm256_maskload_ps(p, first_lanes(2 * n));
  const __m256 v1 = _mm256_maskload_ps(p + 8, first_lanes(2 * n - 8));
  // Per 128-bit lane: v0[0] v0[2] v1[0] v1[2] | v0[4] v0[6] v1[4] v1[6].
  const __m256 even = _mm256_shuffle_ps(v0, v1, _MM_SHUFFLE(2, 0, 2, 0));
  const __m256 odd = _mm256_shuffle_ps(v0, v1, _MM_SHUFFLE(3, 1, 3, 1));
  return {chunks_0213(even), chunks_0213(odd)};
}

// Stores even[k] and odd[k] interleaved at p[2k], p[2k + 1] for k < n.
inline void join_pairs(float* p, int n, __m256 even, __m256 odd) {
  // lo: e0 o0 e1 o1 | e4 o4 e5 o5; hi: e2 o2 e3 o3 | e6 o6 e7 o7.
  const __m256 lo = _mm256_unpacklo_ps(even, odd), hi = _mm256_unpackhi_ps(even, odd);
  _mm256_maskstore_ps(p, first_lanes(2 * n), _mm256_permute2f128_ps(lo, hi, 0x20));
  _mm256_maskstore_ps(p + 8, first_lanes(2 * n - 8), _mm256_permute2f128_ps(lo, hi, 0x31));
}

inline Lanes2x2 load_windows(const float* r0, const float* r1, int n) {
  const Pairs top = split_pairs(r0, n), bottom = split_pairs(r1, n);
  return {top.even, top.odd, bottom.even, bottom.odd};
}

inline __m256 window_max(const Lanes2x2& l) {
  return _mm256_max_ps(_mm256_max_ps(l.a, l.b), _mm256_max_ps(l.c, l.d));
}

// `value` in the lanes where `where` holds, else `other`.
inline __m256i select(__m256 where, __m256i value, __m256i other) {
  return _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(other), _mm256_castsi256_ps(value), where));
}

// The window offset (0, 1, w, w + 1) of each lane's first maximum m.
inline __m256i first_argmax(const Lanes2x2& l, __m256 m, int32_t w) {
  __m256i at = _mm256_set1_epi32(w + 1);
  at = select(_mm256_cmp_ps(l.c, m, _CMP_EQ_OQ), _mm256_set1_epi32(w), at);
  at = select(_mm256_cmp_ps(l.b, m, _CMP_EQ_OQ), _mm256_set1_epi32(1), at);
  return select(_mm256_cmp_ps(l.a, m, _CMP_EQ_OQ), _mm256_setzero_si256(), at);
}

}  // namespace

void plane_2x2(Avx2Isa, const PoolGeometry& g, const float* x, float* y, int32_t* mask) {
  const int32_t w = static_cast<int32_t>(g.w);
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  for (int64_t i = 0; i < g.oh; ++i) {
    const float* r0 = x + 2 * i * g.w;
    const float* r1 = r0 + g.w;
    for (int64_t j = 0; j < g.ow; j += 8) {
      const int n = static_cast<int>(std::min<int64_t>(8, g.ow - j));
      const __m256i k = first_lanes(n);
      const Lanes2x2 l = load_windows(r0 + 2 * j, r1 + 2 * j, n);
      if (!g.max) {
        // ((a + b) + c) + d, as the portable loop adds.
        const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(l.a, l.b), l.c), l.d);
        _mm256_maskstore_ps(y + i * g.ow + j, k, _mm256_mul_ps(sum, _mm256_set1_ps(0.25f)));
        continue;
      }
      const __m256 m = window_max(l);
      _mm256_maskstore_ps(y + i * g.ow + j, k, m);
      if (mask) {
        const __m256i base = _mm256_set1_epi32(static_cast<int32_t>(2 * i * g.w + 2 * j));
        const __m256i at = _mm256_add_epi32(_mm256_add_epi32(base, lane2), first_argmax(l, m, w));
        _mm256_maskstore_epi32(mask + i * g.ow + j, k, at);
      }
    }
  }
}

void plane_grad_2x2(Avx2Isa, const PoolGeometry& g, const float* x, const float* dy,
                    const int32_t* mask, float* dx) {
  const int32_t w = static_cast<int32_t>(g.w);
  const __m256i lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
  for (int64_t i = 0; i < g.oh; ++i) {
    float* d0 = dx + 2 * i * g.w;
    float* d1 = d0 + g.w;
    for (int64_t j = 0; j < g.ow; j += 8) {
      const int n = static_cast<int>(std::min<int64_t>(8, g.ow - j));
      const __m256i k = first_lanes(n);
      const __m256 q = _mm256_maskload_ps(dy + i * g.ow + j, k);
      if (!g.max) {
        const __m256 quarter = _mm256_mul_ps(q, _mm256_set1_ps(0.25f));
        join_pairs(d0 + 2 * j, n, quarter, quarter);
        join_pairs(d1 + 2 * j, n, quarter, quarter);
        continue;
      }
      __m256i at;
      if (mask) {
        const __m256i base = _mm256_set1_epi32(static_cast<int32_t>(2 * i * g.w + 2 * j));
        at = _mm256_sub_epi32(_mm256_maskload_epi32(mask + i * g.ow + j, k),
                              _mm256_add_epi32(base, lane2));
      } else {
        const Lanes2x2 l = load_windows(x + 2 * i * g.w + 2 * j, x + (2 * i + 1) * g.w + 2 * j, n);
        at = first_argmax(l, window_max(l), w);
      }
      auto routed = [&](int32_t offset) {
        const __m256i hit = _mm256_cmpeq_epi32(at, _mm256_set1_epi32(offset));
        return _mm256_and_ps(_mm256_castsi256_ps(hit), q);
      };
      join_pairs(d0 + 2 * j, n, routed(0), routed(1));
      join_pairs(d1 + 2 * j, n, routed(w), routed(w + 1));
    }
  }
}

// int8: 16 outputs a step (the row's last few one by one). The two rows' maxima, then each
// pair of bytes as one int16 lane (the left cell in its low byte): the larger of its two
// sign-extended halves, packed back to bytes (in range: no saturation).
void plane_max_2x2(Avx2Isa, const PoolGeometry& g, const int8_t* x, int8_t* y) {
  for (int64_t i = 0; i < g.oh; ++i) {
    const int8_t* r0 = x + 2 * i * g.w;
    const int8_t* r1 = r0 + g.w;
    int8_t* out = y + i * g.ow;
    int64_t j = 0;
    for (; j + 16 <= g.ow; j += 16) {
      const __m256i v =
          _mm256_max_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r0 + 2 * j)),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r1 + 2 * j)));
      const __m256i left = _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8);
      const __m256i m = _mm256_max_epi16(left, _mm256_srai_epi16(v, 8));
      const __m256i packed =
          _mm256_permute4x64_epi64(_mm256_packs_epi16(m, m), _MM_SHUFFLE(3, 1, 2, 0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), _mm256_castsi256_si128(packed));
    }
    for (; j < g.ow; ++j) {
      out[j] = std::max(std::max(r0[2 * j], r0[2 * j + 1]), std::max(r1[2 * j], r1[2 * j + 1]));
    }
  }
}

}  // namespace skiff::kernels
