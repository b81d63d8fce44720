// The direct pooling loops of pool_geometry.h: any window by element, 2x2 windows at
// stride 2 vectorised (with AVX-512 masks for float rows of any length).
#include <algorithm>
#include <atomic>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/pool_geometry.h"

namespace skiff::kernels {
namespace {

template <typename T>
void max_plane(const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
  for (int64_t i = 0; i < g.oh; ++i) {
    int64_t h0, h1;
    g.rows(i, &h0, &h1);
    for (int64_t j = 0; j < g.ow; ++j) {
      int64_t w0, w1;
      g.cols(j, &w0, &w1);
      int64_t arg = h0 * g.w + w0;
      T m = x[arg];
      for (int64_t r = h0; r < h1; ++r) {
        for (int64_t c = w0; c < w1; ++c) {
          if (x[r * g.w + c] > m) {
            m = x[r * g.w + c];
            arg = r * g.w + c;
          }
        }
      }
      y[i * g.ow + j] = m;
      if (mask) mask[i * g.ow + j] = static_cast<int32_t>(arg);
    }
  }
}

template <typename T>
void avg_plane(const PoolGeometry& g, const T* x, T* y) {
  for (int64_t i = 0; i < g.oh; ++i) {
    int64_t h0, h1;
    g.rows(i, &h0, &h1);
    for (int64_t j = 0; j < g.ow; ++j) {
      int64_t w0, w1;
      g.cols(j, &w0, &w1);
      T sum = T(0);
      for (int64_t r = h0; r < h1; ++r)
        for (int64_t c = w0; c < w1; ++c) sum += x[r * g.w + c];
      y[i * g.ow + j] = sum / static_cast<T>(g.divisor(i, j, (h1 - h0) * (w1 - w0)));
    }
  }
}

// 2x2 windows (a b / c d) at stride 2; the argmax is the first maximum in row-major
// order (b beats a, d beats c, the bottom pair beats the top pair only when strictly
// greater). The loops are written branch-free so that they vectorise.
template <typename T>
void plane_2x2(const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
  const int32_t w = static_cast<int32_t>(g.w);
  for (int64_t i = 0; i < g.oh; ++i) {
    const T* r0 = x + 2 * i * g.w;
    const T* r1 = r0 + g.w;
    T* yo = y + i * g.ow;
    if (!g.max) {
#pragma omp simd
      for (int64_t j = 0; j < g.ow; ++j)
        yo[j] = (r0[2 * j] + r0[2 * j + 1] + r1[2 * j] + r1[2 * j + 1]) * T(0.25);
    } else if (!mask) {
#pragma omp simd
      for (int64_t j = 0; j < g.ow; ++j)
        yo[j] = std::max(std::max(r0[2 * j], r0[2 * j + 1]), std::max(r1[2 * j], r1[2 * j + 1]));
    } else {
      int32_t* mo = mask + i * g.ow;
      const int32_t base = static_cast<int32_t>(2 * i) * w;
#pragma omp simd
      for (int32_t j = 0; j < static_cast<int32_t>(g.ow); ++j) {
        const T a = r0[2 * j], b = r0[2 * j + 1], c = r1[2 * j], d = r1[2 * j + 1];
        const T m = std::max(std::max(a, b), std::max(c, d));
        int32_t at = w + 1;
        at = c == m ? w : at;
        at = b == m ? 1 : at;
        at = a == m ? 0 : at;
        yo[j] = m;
        mo[j] = base + 2 * j + at;
      }
    }
  }
}

// Gradients of 2x2 windows: every cell of the covered rows is written (no zeroing pass).
template <typename T>
void plane_grad_2x2(const PoolGeometry& g, const T* x, const T* dy, const int32_t* mask, T* dx) {
  const int32_t w = static_cast<int32_t>(g.w);
  for (int64_t i = 0; i < g.oh; ++i) {
    const T* g0 = dy + i * g.ow;
    T* d0 = dx + 2 * i * g.w;
    T* d1 = d0 + g.w;
    if (!g.max) {
#pragma omp simd
      for (int64_t j = 0; j < g.ow; ++j) {
        const T q = g0[j] * T(0.25);
        d0[2 * j] = d0[2 * j + 1] = d1[2 * j] = d1[2 * j + 1] = q;
      }
    } else if (mask) {
      const int32_t* mo = mask + i * g.ow;
      const int32_t base = static_cast<int32_t>(2 * i) * w;
#pragma omp simd
      for (int32_t j = 0; j < static_cast<int32_t>(g.ow); ++j) {
        const int32_t at = mo[j] - base - 2 * j;
        const T q = g0[j];
        d0[2 * j] = at == 0 ? q : T(0);
        d0[2 * j + 1] = at == 1 ? q : T(0);
        d1[2 * j] = at == w ? q : T(0);
        d1[2 * j + 1] = at == w + 1 ? q : T(0);
      }
    } else {
      const T* r0 = x + 2 * i * g.w;
      const T* r1 = r0 + g.w;
#pragma omp simd
      for (int64_t j = 0; j < g.ow; ++j) {
        const T a = r0[2 * j], b = r0[2 * j + 1], c = r1[2 * j], d = r1[2 * j + 1];
        const T top = b > a ? b : a, bottom = d > c ? d : c;
        const T q = g0[j];
        const T q_top = bottom > top ? T(0) : q, q_bottom = bottom > top ? q : T(0);
        d0[2 * j] = b > a ? T(0) : q_top;
        d0[2 * j + 1] = b > a ? q_top : T(0);
        d1[2 * j] = d > c ? T(0) : q_bottom;
        d1[2 * j + 1] = d > c ? q_bottom : T(0);
      }
    }
  }
}

#ifdef __AVX512F__
// float 2x2 windows with AVX-512: 16 outputs per step with masked loads and stores, so
// that short rows (14 or 7 outputs) run vectorised too.
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

void plane_2x2(const PoolGeometry& g, const float* x, float* y, int32_t* mask) {
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
        const __m512 sum = _mm512_add_ps(_mm512_add_ps(l.a, l.b), _mm512_add_ps(l.c, l.d));
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

void plane_grad_2x2(const PoolGeometry& g, const float* x, const float* dy, const int32_t* mask,
                    float* dx) {
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
#endif  // __AVX512F__

template <typename T>
void pool_plane(const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
  if (g.unpadded_2x2()) {
    plane_2x2(g, x, y, mask);
  } else if (g.max) {
    max_plane(g, x, y, mask);
  } else {
    avg_plane(g, x, y);
  }
}

// dx of one plane; false when `mask` holds an index outside the plane.
template <typename T>
bool pool_plane_grad(const PoolGeometry& g, const T* x, const T* dy, const int32_t* mask, T* dx) {
  const int64_t cells = g.h * g.w;
  if (g.unpadded_2x2()) {
    if (2 * g.oh != g.h || 2 * g.ow != g.w) std::fill(dx, dx + cells, T(0));
    plane_grad_2x2(g, x, dy, mask, dx);
    return true;
  }
  std::fill(dx, dx + cells, T(0));
  if (g.max && mask) {
    for (int64_t o = 0; o < g.oh * g.ow; ++o) {
      if (mask[o] < 0 || mask[o] >= cells) return false;
      dx[mask[o]] += dy[o];
    }
    return true;
  }
  for (int64_t i = 0; i < g.oh; ++i) {
    int64_t h0, h1;
    g.rows(i, &h0, &h1);
    for (int64_t j = 0; j < g.ow; ++j) {
      int64_t w0, w1;
      g.cols(j, &w0, &w1);
      const T grad = dy[i * g.ow + j];
      if (g.max) {
        int64_t arg = h0 * g.w + w0;
        for (int64_t r = h0; r < h1; ++r)
          for (int64_t c = w0; c < w1; ++c)
            if (x[r * g.w + c] > x[arg]) arg = r * g.w + c;
        dx[arg] += grad;
      } else {
        const T q = grad / static_cast<T>(g.divisor(i, j, (h1 - h0) * (w1 - w0)));
        for (int64_t r = h0; r < h1; ++r)
          for (int64_t c = w0; c < w1; ++c) dx[r * g.w + c] += q;
      }
    }
  }
  return true;
}

template <typename T>
void forward_planes(const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  parallel_for(g.planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(in_plane, 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) {
                   int32_t* m = mask ? mask + p * out_plane : nullptr;
                   pool_plane(g, x + p * in_plane, y + p * out_plane, m);
                 }
               });
}

template <typename T>
bool backward_planes(const PoolGeometry& g, const T* x, const T* dy, const int32_t* mask, T* dx) {
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  std::atomic<bool> mask_ok{true};
  parallel_for(
      g.planes, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(in_plane, 1)),
      [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const int32_t* m = mask ? mask + p * out_plane : nullptr;
          if (!pool_plane_grad(g, x + p * in_plane, dy + p * out_plane, m, dx + p * in_plane)) {
            mask_ok.store(false, std::memory_order_relaxed);
          }
        }
      });
  return mask_ok.load();
}

}  // namespace

void pool_planes(const PoolGeometry& g, const float* x, float* y, int32_t* mask) {
  forward_planes(g, x, y, mask);
}
void pool_planes(const PoolGeometry& g, const double* x, double* y, int32_t* mask) {
  forward_planes(g, x, y, mask);
}
bool pool_planes_grad(const PoolGeometry& g, const float* x, const float* dy, const int32_t* mask,
                      float* dx) {
  return backward_planes(g, x, dy, mask, dx);
}
bool pool_planes_grad(const PoolGeometry& g, const double* x, const double* dy, const int32_t* mask,
                      double* dx) {
  return backward_planes(g, x, dy, mask, dx);
}

}  // namespace skiff::kernels
