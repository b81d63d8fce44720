#include "skiff/kernels/cpu/sequence_math.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/fill.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {
namespace {

// Running sums of one row of n values (in memory order, or reversed with step -1).
template <typename T>
void scan_row(const T* x, T* out, int64_t n, int64_t step, bool exclusive) {
  T acc = T(0);
  if (exclusive) {
    for (int64_t k = 0; k < n; ++k) {
      const T v = x[k * step];
      out[k * step] = acc;
      acc += v;
    }
  } else {
    for (int64_t k = 0; k < n; ++k) out[k * step] = acc += x[k * step];
  }
}

// Running sums over the middle dim of x viewed as [outer, n, inner]: element by
// element when inner == 1, else whole rows of `inner` elements added at a time.
template <typename T>
void running_sums(const T* x, T* out, int64_t outer, int64_t n, int64_t inner, bool exclusive,
                  bool reverse) {
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (n * inner));
  const int64_t step = reverse ? -inner : inner;
  const int64_t first = reverse ? (n - 1) * inner : 0;
  parallel_for(outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* xs = x + o * n * inner + first;
      T* os = out + o * n * inner + first;
      if (inner == 1) {
        scan_row(xs, os, n, step, exclusive);
        continue;
      }
      for (int64_t i = 0; i < inner; ++i) os[i] = exclusive ? T(0) : xs[i];
      for (int64_t k = 1; k < n; ++k) {
        const T* add = xs + (exclusive ? (k - 1) : k) * step;
        const T* prev = os + (k - 1) * step;
        T* cur = os + k * step;
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) cur[i] = prev[i] + add[i];
      }
    }
  });
}

template <typename T>
void fill_range(double start, double end, double step, Tensor* out) {
  if constexpr (std::is_integral_v<T>) {
    const T s = fill_value_as<T>(start), e = fill_value_as<T>(end), d = fill_value_as<T>(step);
    const int64_t span = static_cast<int64_t>(e) - s;
    const int64_t n = d > 0 ? (span + d - 1) / d : (span + d + 1) / d;
    out->resize(Shape{std::max<int64_t>(n, 0)}, dtype_of<T>);
    T* p = out->data<T>();
    for (int64_t i = 0; i < out->numel(); ++i) p[i] = static_cast<T>(s + i * d);
  } else {
    out->resize(Shape{arange_length(start, end, step)}, dtype_of<T>);
    T* p = out->data<T>();
    for (int64_t i = 0; i < out->numel(); ++i) p[i] = static_cast<T>(start + i * step);
  }
}

}  // namespace

void cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse, Tensor* out) {
  const Tensor src = input_handle(x);
  const Shape& shape = src.shape();
  const int a = shape.rank() == 0 ? 0 : resolve_axis("cumsum", axis, shape);
  out->resize(shape, src.dtype());
  if (src.numel() == 0) return;
  const int64_t outer = dims_product(shape, 0, a);
  const int64_t n = shape.rank() == 0 ? 1 : shape[a];
  const int64_t inner = dims_product(shape, a + 1, shape.rank());
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    running_sums<T>(src.data<T>(), out->data<T>(), outer, n, inner, exclusive, reverse);
  });
}

int64_t arange_length(double start, double end, double step) {
  SKIFF_CHECK(std::isfinite(start) && std::isfinite(end) && std::isfinite(step) && step != 0,
              "arange: start ", start, ", end ", end, " and step ", step,
              " must be finite with a non-zero step");
  const double n = std::ceil((end - start) / step);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

void arange(double start, double end, double step, DType dtype, Tensor* out) {
  arange_length(start, end, step);  // checks the arguments
  SKIFF_DISPATCH_NUMERIC(dtype, T, fill_range<T>(start, end, step, out));
}

}  // namespace skiff::kernels
