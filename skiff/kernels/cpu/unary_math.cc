#include "skiff/kernels/cpu/unary_math.h"

#include <cmath>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/input_handle.h"

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

template <typename T>
void apply_float(UnaryMath f, const T* x, T* o, int64_t n) {
  switch (f) {
    case UnaryMath::kSin:
      return map(x, o, n, [](T v) { return std::sin(v); });
    case UnaryMath::kCos:
      return map(x, o, n, [](T v) { return std::cos(v); });
    case UnaryMath::kLog1p:
      return map(x, o, n, [](T v) { return std::log1p(v); });
    case UnaryMath::kFloor:
      return map(x, o, n, [](T v) { return std::floor(v); });
    case UnaryMath::kCeil:
      return map(x, o, n, [](T v) { return std::ceil(v); });
    case UnaryMath::kRound:
      return map(x, o, n, [](T v) { return std::round(v); });
    case UnaryMath::kSign:
      return map(x, o, n, [](T v) { return sign_of(v); });
  }
}

const char* name_of(UnaryMath f) {
  switch (f) {
    case UnaryMath::kSin:
      return "sin";
    case UnaryMath::kCos:
      return "cos";
    case UnaryMath::kLog1p:
      return "log1p";
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

}  // namespace

void unary_math(UnaryMath f, const Tensor& x, Tensor* out) {
  const Tensor src = input_handle(x);
  const bool exact_on_ints = f == UnaryMath::kFloor || f == UnaryMath::kCeil ||
                             f == UnaryMath::kRound || f == UnaryMath::kSign;
  SKIFF_CHECK(src.dtype() == DType::kF32 || src.dtype() == DType::kF64 ||
                  (exact_on_ints && (src.dtype() == DType::kI32 || src.dtype() == DType::kI64)),
              name_of(f), ": X must be float32 or float64",
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
  SKIFF_CHECK(x.shape() == dout.shape(), name_of(f), "_grad: X ", x.type_str(), " and Out@GRAD ",
              dout.type_str(), " differ");
  const Tensor src = input_handle(x), g = input_handle(dout);
  dx->resize(src.shape(), src.dtype());
  const int64_t n = src.numel();
  SKIFF_DISPATCH_FLOATING(src.dtype(), T, {
    const T* a = src.data<T>();
    const T* gd = g.data<T>();
    T* o = dx->data<T>();
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
      switch (f) {
        case UnaryMath::kSin:
          for (int64_t i = b; i < e; ++i) o[i] = std::cos(a[i]) * gd[i];
          break;
        case UnaryMath::kCos:
          for (int64_t i = b; i < e; ++i) o[i] = -std::sin(a[i]) * gd[i];
          break;
        case UnaryMath::kLog1p:
          for (int64_t i = b; i < e; ++i) o[i] = gd[i] / (T(1) + a[i]);
          break;
        default:
          fail(name_of(f), " has no gradient kernel");
      }
    });
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

}  // namespace skiff::kernels
