// The direct pooling loops of pool_geometry.h: any window by element, 2x2 windows at
// stride 2 vectorised (float32 rows of any length, and int8 maxima, by AVX2 or AVX-512
// where the CPU has them: pool_planes_isa.h).
#include <algorithm>
#include <atomic>
#include <type_traits>

#include "skiff/core/cpu.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/pool_geometry.h"
#include "skiff/kernels/cpu/pool_planes_isa.h"

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
void plane_2x2(GenericIsa, const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
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
void plane_grad_2x2(GenericIsa, const PoolGeometry& g, const T* x, const T* dy, const int32_t* mask,
                    T* dx) {
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

void plane_max_2x2(GenericIsa, const PoolGeometry& g, const int8_t* x, int8_t* y) {
  plane_2x2(GenericIsa{}, g, x, y, nullptr);
}

template <typename T>
void pool_plane(const PoolGeometry& g, const T* x, T* y, int32_t* mask) {
  if constexpr (std::is_same_v<T, int8_t>) {
    if (g.unpadded_2x2() && !mask) {
      dispatch_isa([&](auto isa) { plane_max_2x2(isa, g, x, y); });
      return;
    }
  }
  if (g.unpadded_2x2()) {
    dispatch_isa([&](auto isa) { plane_2x2(isa, g, x, y, mask); });
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
    dispatch_isa([&](auto isa) { plane_grad_2x2(isa, g, x, dy, mask, dx); });
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
void pool_planes(const PoolGeometry& g, const int8_t* x, int8_t* y, int32_t* mask) {
  SKIFF_CHECK(g.max, "pool2d: int8 tensors take max pooling only");
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
