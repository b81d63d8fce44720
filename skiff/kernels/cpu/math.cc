#include "skiff/kernels/cpu/math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "skiff/core/parallel.h"

namespace skiff::kernels {
namespace {

// out[i] = fn(x[i]) over every element, split across threads past kParallelGrain.
// out is resized first, so it may be x.
template <typename T, typename Fn>
void map_elements(const Tensor& x, Tensor* out, Fn fn) {
  out->resize(x.shape(), x.dtype());
  const T* xp = x.data<T>();
  T* op = out->data<T>();
  parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) op[i] = fn(xp[i]);
  });
}

template <typename T, typename Fn>
void map_pairs(const T* x, const T* dout, T* dx, int64_t n, Fn fn) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) dx[i] = fn(x[i], dout[i]);
  });
}

// dx[i] = fn(x[i], dout[i]) for a floating gradient; dx may be x or dout.
template <typename Fn>
void map_grad(const char* op, const Tensor& x, const Tensor& dout, Tensor* dx, Fn fn) {
  SKIFF_CHECK(x.shape() == dout.shape() && x.dtype() == dout.dtype(), op, "_grad: X is ",
              x.type_str(), " but Out@GRAD is ", dout.type_str(), "; they must match");
  dx->resize(dout.shape(), dout.dtype());
  SKIFF_DISPATCH_FLOATING(
      dout.dtype(), T, map_pairs<T>(x.data<T>(), dout.data<T>(), dx->data<T>(), dout.numel(), fn));
}

// Integer arithmetic through the unsigned type, where overflow wraps instead of being
// undefined.
template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
T absolute_of(T v) {
  if constexpr (std::is_integral_v<T>) {
    return v < 0 ? static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(v)) : v;
  } else {
    return std::abs(v);
  }
}

template <typename T>
T square_of(T v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(v) * static_cast<Unsigned<T>>(v));
  } else {
    return v * v;
  }
}

// The bounds of clip in T: for an integer T, the nearest integers inside [min, max]
// saturated to T's range.
template <typename T>
void clip_bounds(double min, double max, T* lo, T* hi) {
  if constexpr (std::is_integral_v<T>) {
    const double low = static_cast<double>(std::numeric_limits<T>::lowest());
    const double high = static_cast<double>(std::numeric_limits<T>::max());
    *lo = std::ceil(min) <= low ? std::numeric_limits<T>::lowest() : static_cast<T>(std::ceil(min));
    *hi = std::floor(max) >= high ? std::numeric_limits<T>::max() : static_cast<T>(std::floor(max));
  } else {
    *lo = static_cast<T>(min);
    *hi = static_cast<T>(max);
  }
}

void check_bounds(double min, double max) {
  SKIFF_CHECK(!std::isnan(min) && !std::isnan(max) && min <= max, "clip: min (", min,
              ") must not exceed max (", max, ")");
}

}  // namespace

void absolute(const Tensor& x, Tensor* out) {
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, map_elements<T>(x, out, [](T v) { return absolute_of(v); }));
}

void absolute_grad(const Tensor& x, const Tensor& dout, Tensor* dx) {
  map_grad("abs", x, dout, dx, [](auto v, auto d) {
    using T = decltype(v);
    return v > T(0) ? d : (v < T(0) ? -d : T(0));
  });
}

void square(const Tensor& x, Tensor* out) {
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, map_elements<T>(x, out, [](T v) { return square_of(v); }));
}

void square_grad(const Tensor& x, const Tensor& dout, Tensor* dx) {
  map_grad("square", x, dout, dx, [](auto v, auto d) { return decltype(v)(2) * v * d; });
}

void clip(const Tensor& x, double min, double max, Tensor* out) {
  check_bounds(min, max);
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, {
    T lo, hi;
    clip_bounds(min, max, &lo, &hi);
    // max(x, lo) and min(., hi) with x first, so that a NaN x stays NaN.
    map_elements<T>(x, out, [lo, hi](T v) { return std::min(std::max(v, lo), hi); });
  });
}

void clip_grad(const Tensor& x, const Tensor& dout, double min, double max, Tensor* dx) {
  check_bounds(min, max);
  map_grad("clip", x, dout, dx, [min, max](auto v, auto d) {
    using T = decltype(v);
    return v > T(min) && v < T(max) ? d : T(0);
  });
}

void softshrink(const Tensor& x, double threshold, Tensor* out) {
  SKIFF_CHECK(threshold >= 0, "softshrink: threshold must be >= 0, got ", threshold);
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T t = static_cast<T>(threshold);
    map_elements<T>(x, out, [t](T v) { return v > t ? v - t : v < -t ? v + t : T(0); });
  });
}

void softshrink_grad(const Tensor& x, const Tensor& dout, double threshold, Tensor* dx) {
  map_grad("softshrink", x, dout, dx, [threshold](auto v, auto d) {
    using T = decltype(v);
    return v > T(threshold) || v < T(-threshold) ? d : T(0);
  });
}

}  // namespace skiff::kernels
