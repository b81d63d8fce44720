#include "skiff/kernels/cpu/unary_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/elementwise_map.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/special_functions.h"

namespace skiff::kernels {
namespace {

// out[i] = fn(x[i]) over n elements, threaded past the grain.
template <typename In, typename Out, typename Fn>
void map(const In* x, Out* out, int64_t n, Fn fn) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) out[i] = fn(x[i]);
  });
}

template <typename T>
T sign_of(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return v;
  }
  return static_cast<T>((v > T(0)) - (v < T(0)));
}

// f at one float value (floor, ceil, round and sign included).
template <typename T>
T value_of(UnaryMath f, T v) {
  switch (f) {
    case UnaryMath::kSin:
      return std::sin(v);
    case UnaryMath::kCos:
      return std::cos(v);
    case UnaryMath::kLog1p:
      return std::log1p(v);
    case UnaryMath::kTan:
      return std::tan(v);
    case UnaryMath::kAtan:
      return std::atan(v);
    case UnaryMath::kAsin:
      return std::asin(v);
    case UnaryMath::kAcos:
      return std::acos(v);
    case UnaryMath::kSinh:
      return std::sinh(v);
    case UnaryMath::kCosh:
      return std::cosh(v);
    case UnaryMath::kAsinh:
      return std::asinh(v);
    case UnaryMath::kAcosh:
      return std::acosh(v);
    case UnaryMath::kAtanh:
      return std::atanh(v);
    case UnaryMath::kErf:
      return std::erf(v);
    case UnaryMath::kErfinv:
      return static_cast<T>(erfinv(static_cast<double>(v)));
    case UnaryMath::kExpm1:
      return std::expm1(v);
    case UnaryMath::kLgamma: {
      int sign;  // the reentrant form: plain lgamma writes the global signgam
      if constexpr (std::is_same_v<T, float>) {
        return ::lgammaf_r(v, &sign);
      } else {
        return ::lgamma_r(v, &sign);
      }
    }
    case UnaryMath::kDigamma:
      return static_cast<T>(digamma(static_cast<double>(v)));
    case UnaryMath::kI0:
      return static_cast<T>(bessel_i(0, static_cast<double>(v), false));
    case UnaryMath::kI0e:
      return static_cast<T>(bessel_i(0, static_cast<double>(v), true));
    case UnaryMath::kI1:
      return static_cast<T>(bessel_i(1, static_cast<double>(v), false));
    case UnaryMath::kI1e:
      return static_cast<T>(bessel_i(1, static_cast<double>(v), true));
    case UnaryMath::kFloor:
      return std::floor(v);
    case UnaryMath::kCeil:
      return std::ceil(v);
    case UnaryMath::kRound:
      return std::round(v);
    case UnaryMath::kSign:
      return sign_of(v);
  }
  return v;
}

// f'(v) for the smooth functions (0 for the piecewise-constant ones).
template <typename T>
T derivative_of(UnaryMath f, T v) {
  switch (f) {
    case UnaryMath::kSin:
      return std::cos(v);
    case UnaryMath::kCos:
      return -std::sin(v);
    case UnaryMath::kLog1p:
      return T(1) / (T(1) + v);
    case UnaryMath::kTan: {
      const T c = std::cos(v);
      return T(1) / (c * c);
    }
    case UnaryMath::kAtan:
      return T(1) / (T(1) + v * v);
    case UnaryMath::kAsin:
      return T(1) / std::sqrt(T(1) - v * v);
    case UnaryMath::kAcos:
      return T(-1) / std::sqrt(T(1) - v * v);
    case UnaryMath::kSinh:
      return std::cosh(v);
    case UnaryMath::kCosh:
      return std::sinh(v);
    case UnaryMath::kAsinh:
      return T(1) / std::sqrt(v * v + T(1));
    case UnaryMath::kAcosh:
      return T(1) / std::sqrt(v * v - T(1));
    case UnaryMath::kAtanh:
      return T(1) / (T(1) - v * v);
    case UnaryMath::kErf:  // 2 / sqrt(pi) exp(-x^2)
      return T(1.1283791670955126) * std::exp(-v * v);
    case UnaryMath::kErfinv: {  // sqrt(pi) / 2 exp(erfinv(x)^2)
      const double y = erfinv(static_cast<double>(v));
      return static_cast<T>(0.88622692545275801 * std::exp(y * y));
    }
    case UnaryMath::kExpm1:
      return std::exp(v);
    case UnaryMath::kLgamma:
      return static_cast<T>(digamma(static_cast<double>(v)));
    case UnaryMath::kDigamma:
      return static_cast<T>(trigamma(static_cast<double>(v)));
    case UnaryMath::kI0:  // I0' = I1
      return static_cast<T>(bessel_i(1, static_cast<double>(v), false));
    case UnaryMath::kI0e: {  // (I0 e^-|x|)' = I1e - sign(x) I0e; -1 at 0 (the right side), as
                             // Paddle
      const double d = v;
      return static_cast<T>(bessel_i(1, d, true) - (d < 0 ? -1.0 : 1.0) * bessel_i(0, d, true));
    }
    case UnaryMath::kI1: {  // I1' = I0 - I1 / x (1/2 at 0)
      const double d = v;
      return static_cast<T>(d == 0.0 ? 0.5 : bessel_i(0, d, false) - bessel_i(1, d, false) / d);
    }
    case UnaryMath::kI1e: {  // (I1 e^-|x|)' = I0e - I1e (sign(x) + 1 / x) (1/2 at 0)
      const double d = v;
      if (d == 0.0) return T(0.5);
      return static_cast<T>(bessel_i(0, d, true) - bessel_i(1, d, true) * (sign_of(d) + 1.0 / d));
    }
    default:
      return T(0);
  }
}

// One loop per f (f a compile-time constant in each), so each can be vectorised where
// the function has a vector form.
#define SKIFF_UNARY_MATH_CASES(X) \
  X(kSin)                         \
  X(kCos)                         \
  X(kLog1p)                       \
  X(kTan)                         \
  X(kAtan)                        \
  X(kAsin)                        \
  X(kAcos)                        \
  X(kSinh)                        \
  X(kCosh)                        \
  X(kAsinh)                       \
  X(kAcosh)                       \
  X(kAtanh)                       \
  X(kErf)                         \
  X(kErfinv)                      \
  X(kExpm1)                       \
  X(kLgamma)                      \
  X(kDigamma)                     \
  X(kI0)                          \
  X(kI0e)                         \
  X(kI1)                          \
  X(kI1e)

template <typename T>
void apply_float(UnaryMath f, const T* x, T* o, int64_t n) {
  switch (f) {
#define SKIFF_VALUE_CASE(kF) \
  case UnaryMath::kF:        \
    return map(x, o, n, [](T v) { return value_of(UnaryMath::kF, v); });
    SKIFF_UNARY_MATH_CASES(SKIFF_VALUE_CASE)
    SKIFF_VALUE_CASE(kFloor)
    SKIFF_VALUE_CASE(kCeil)
    SKIFF_VALUE_CASE(kRound)
    SKIFF_VALUE_CASE(kSign)
#undef SKIFF_VALUE_CASE
  }
}

// o = f'(x) * g over n elements, threaded past the grain.
template <typename T>
void grad_float(UnaryMath f, const T* x, const T* g, T* o, int64_t n) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    switch (f) {
#define SKIFF_GRAD_CASE(kF)                                                           \
  case UnaryMath::kF:                                                                 \
    for (int64_t i = b; i < e; ++i) o[i] = derivative_of(UnaryMath::kF, x[i]) * g[i]; \
    break;
      SKIFF_UNARY_MATH_CASES(SKIFF_GRAD_CASE)
#undef SKIFF_GRAD_CASE
      default:
        break;
    }
  });
}

bool is_piecewise_constant(UnaryMath f) {
  return f == UnaryMath::kFloor || f == UnaryMath::kCeil || f == UnaryMath::kRound ||
         f == UnaryMath::kSign;
}

}  // namespace

const char* unary_math_op(UnaryMath f) {
  switch (f) {
    case UnaryMath::kSin:
      return "sin";
    case UnaryMath::kCos:
      return "cos";
    case UnaryMath::kLog1p:
      return "log1p";
    case UnaryMath::kTan:
      return "tan";
    case UnaryMath::kAtan:
      return "atan";
    case UnaryMath::kAsin:
      return "asin";
    case UnaryMath::kAcos:
      return "acos";
    case UnaryMath::kSinh:
      return "sinh";
    case UnaryMath::kCosh:
      return "cosh";
    case UnaryMath::kAsinh:
      return "asinh";
    case UnaryMath::kAcosh:
      return "acosh";
    case UnaryMath::kAtanh:
      return "atanh";
    case UnaryMath::kErf:
      return "erf";
    case UnaryMath::kErfinv:
      return "erfinv";
    case UnaryMath::kExpm1:
      return "expm1";
    case UnaryMath::kLgamma:
      return "lgamma";
    case UnaryMath::kDigamma:
      return "digamma";
    case UnaryMath::kI0:
      return "i0";
    case UnaryMath::kI0e:
      return "i0e";
    case UnaryMath::kI1:
      return "i1";
    case UnaryMath::kI1e:
      return "i1e";
    case UnaryMath::kFloor:
      return "floor";
    case UnaryMath::kCeil:
      return "ceil";
    case UnaryMath::kRound:
      return "round";
    case UnaryMath::kSign:
      return "sign";
  }
  return "?";
}

void unary_math(UnaryMath f, const Tensor& x, Tensor* out) {
  const Tensor src = input_handle(x);
  const bool exact_on_ints = is_piecewise_constant(f);
  SKIFF_CHECK(src.dtype() == DType::kF32 || src.dtype() == DType::kF64 ||
                  (exact_on_ints && (src.dtype() == DType::kI32 || src.dtype() == DType::kI64)),
              unary_math_op(f), ": X must be float32 or float64",
              exact_on_ints ? " (or int32/int64)" : "", ", got ", src.type_str());
  out->resize(src.shape(), src.dtype());
  const int64_t n = src.numel();
  switch (src.dtype()) {
    case DType::kF32:
      return apply_float(f, src.data<float>(), out->data<float>(), n);
    case DType::kF64:
      return apply_float(f, src.data<double>(), out->data<double>(), n);
    default:
      SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
        const T* a = src.data<T>();
        T* o = out->data<T>();
        if (f == UnaryMath::kSign) {
          map(a, o, n, [](T v) { return sign_of(v); });
        } else {
          map(a, o, n, [](T v) { return v; });
        }
      });
  }
}

void unary_math_grad(UnaryMath f, const Tensor& x, const Tensor& dout, Tensor* dx) {
  SKIFF_CHECK(x.shape() == dout.shape(), unary_math_op(f), "_grad: X ", x.type_str(),
              " and Out@GRAD ", dout.type_str(), " differ");
  const Tensor src = input_handle(x), g = input_handle(dout);
  dx->resize(src.shape(), src.dtype());
  const int64_t n = src.numel();
  SKIFF_CHECK(!is_piecewise_constant(f), unary_math_op(f), " has no gradient kernel");
  SKIFF_DISPATCH_FLOATING(src.dtype(), T,
                          { grad_float(f, src.data<T>(), g.data<T>(), dx->data<T>(), n); });
}

void polygamma(const Tensor& x, int64_t n, Tensor* out) {
  SKIFF_CHECK(n >= 0, "polygamma: n must be >= 0, got ", n);
  const Tensor src = input_handle(x);
  out->resize(src.shape(), src.dtype());
  const int order = static_cast<int>(n);
  SKIFF_DISPATCH_FLOATING(src.dtype(), T, {
    map(src.data<T>(), out->data<T>(), src.numel(),
        [order](T v) { return static_cast<T>(kernels::polygamma(order, static_cast<double>(v))); });
  });
}

void polygamma_grad(const Tensor& x, const Tensor& dout, int64_t n, Tensor* dx) {
  const Tensor src = input_handle(x), g = input_handle(dout);
  dx->resize(src.shape(), src.dtype());
  const int order = static_cast<int>(n) + 1;
  SKIFF_DISPATCH_FLOATING(src.dtype(), T, {
    const T* a = src.data<T>();
    const T* pg = g.data<T>();
    T* o = dx->data<T>();
    parallel_for(src.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(kernels::polygamma(order, static_cast<double>(a[i]))) * pg[i];
      }
    });
  });
}

void frexp(const Tensor& x, Tensor* mantissa, Tensor* exponent) {
  const Tensor src = input_handle(x);
  mantissa->resize(src.shape(), src.dtype());
  exponent->resize(src.shape(), src.dtype());
  SKIFF_DISPATCH_FLOATING(src.dtype(), T, {
    const T* a = src.data<T>();
    T* m = mantissa->data<T>();
    T* e = exponent->data<T>();
    for (int64_t i = 0, n = src.numel(); i < n; ++i) {
      int power = 0;
      if (std::isnan(a[i])) {
        m[i] = e[i] = a[i];
      } else if (std::isinf(a[i])) {
        m[i] = a[i];
        e[i] = T(1);
      } else {
        m[i] = std::frexp(a[i], &power);
        e[i] = static_cast<T>(power);
      }
    }
  });
}

void classify(FloatClass c, const Tensor& x, Tensor* out) {
  const Tensor src = input_handle(x);
  out->resize(src.shape(), DType::kBool);
  bool* o = out->data<bool>();
  const int64_t n = src.numel();
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const T* a = src.data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      switch (c) {
        case FloatClass::kNan:
          return map(a, o, n, [](T v) { return std::isnan(v); });
        case FloatClass::kInf:
          return map(a, o, n, [](T v) { return std::isinf(v); });
        case FloatClass::kFinite:
          return map(a, o, n, [](T v) { return std::isfinite(v); });
      }
    } else {
      const bool value = c == FloatClass::kFinite;
      map(a, o, n, [value](T) { return value; });
    }
  });
}

// ---- abs, square, clip: any numeric dtype ----

namespace {

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

}  // namespace skiff::kernels
