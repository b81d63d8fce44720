#include "skiff/kernels/cpu/cast.h"

#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/fill.h"

namespace skiff::kernels {

namespace {

// One element: as C++ converts, except a floating value to an 8- or 16-bit integer, which
// truncates toward zero and saturates at the integer's range (NaN gives 0) instead of
// being undefined out of range.
template <typename To, typename From>
To convert_one(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && sizeof(To) <= 2 &&
                !std::is_same_v<To, bool>) {
    if (!(v == v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (v >= static_cast<From>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
  }
  return static_cast<To>(v);
}

template <typename From, typename To>
void convert(const From* x, To* out, int64_t n) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = convert_one<To>(x[i]);
  });
}

// Element conversions from and to bfloat16 for the types without an array routine:
// integers and bool through double (int64 beyond 2^53 is rounded twice), and bfloat16
// to an integer or bool through float, as C++ converts float.
template <typename To>
void from_bf16(const bfloat16* x, To* out, int64_t n) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = convert_one<To>(static_cast<float>(x[i]));
  });
}
template <typename From>
void to_bf16(const From* x, bfloat16* out, int64_t n) {
  parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = bf16_from_double(static_cast<double>(x[i]));
  });
}

// out (sized) = x converted, where one side is bfloat16 and the other is not.
void cast_bf16(const Tensor& x, DType to, Tensor* out) {
  const int64_t n = x.numel();
  auto split = [n](auto convert) {
    parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) { convert(b, e - b); });
  };
  if (x.dtype() == DType::kBF16) {
    const bfloat16* in = x.data<bfloat16>();
    if (to == DType::kF32) {
      float* o = out->data<float>();
      split([&](int64_t b, int64_t len) { bf16_to_float(in + b, o + b, len); });
    } else if (to == DType::kF64) {
      double* o = out->data<double>();
      split([&](int64_t b, int64_t len) { bf16_to_double(in + b, o + b, len); });
    } else {
      SKIFF_DISPATCH_ALL(to, To, from_bf16(in, out->data<To>(), n));
    }
    return;
  }
  bfloat16* o = out->data<bfloat16>();
  if (x.dtype() == DType::kF32) {
    const float* in = x.data<float>();
    split([&](int64_t b, int64_t len) { float_to_bf16(in + b, o + b, len); });
  } else if (x.dtype() == DType::kF64) {
    const double* in = x.data<double>();
    split([&](int64_t b, int64_t len) { double_to_bf16(in + b, o + b, len); });
  } else {
    SKIFF_DISPATCH_ALL(x.dtype(), From, to_bf16(x.data<From>(), o, n));
  }
}

// A complex source or target: a real value v becomes (v, 0); a complex value converts
// to a real dtype through its real part (Paddle's cast drops the imaginary part).
template <typename To, typename From>
To convert_complex(From v) {
  constexpr bool from_c = !std::is_arithmetic_v<From>, to_c = !std::is_arithmetic_v<To>;
  if constexpr (from_c && to_c) {
    return To(static_cast<typename To::value_type>(v.real()),
              static_cast<typename To::value_type>(v.imag()));
  } else if constexpr (from_c) {
    return convert_one<To>(v.real());
  } else {
    return To(static_cast<typename To::value_type>(v), 0);
  }
}

template <typename From, typename To>
void convert_with_complex(const Tensor& x, Tensor* out) {
  if constexpr (std::is_arithmetic_v<From> && std::is_arithmetic_v<To>) {
    fail("cast: no complex dtype in a complex cast");
  } else {
    const From* in = x.data<From>();
    To* o = out->data<To>();
    parallel_for(x.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = convert_complex<To>(in[i]);
    });
  }
}

void cast_complex(const Tensor& x, DType to, Tensor* out) {
  SKIFF_DISPATCH_MOVABLE(x.dtype(), From, {
    SKIFF_DISPATCH_MOVABLE(to, To, (convert_with_complex<From, To>(x, out)));
  });
}

}  // namespace

void cast(const Tensor& x, DType to, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "cast: the input tensor has no value");
  if (out == &x) {
    if (x.dtype() == to) return;
    Tensor converted;
    cast(x, to, &converted);
    *out = std::move(converted);
    return;
  }
  out->resize(x.shape(), to);
  if (x.dtype() == to) {
    std::memcpy(out->raw_data(), x.raw_data(), x.nbytes());
    return;
  }
  if (is_complex(x.dtype()) || is_complex(to)) {
    if (x.dtype() == DType::kBF16 || to == DType::kBF16) {  // through float32
      Tensor f32;
      cast(x, DType::kF32, &f32);
      cast(f32, to, out);
      return;
    }
    cast_complex(x, to, out);
    return;
  }
  if (x.dtype() == DType::kBF16 || to == DType::kBF16) {
    cast_bf16(x, to, out);
    return;
  }
  SKIFF_DISPATCH_ALL(x.dtype(), From, {
    SKIFF_DISPATCH_ALL(to, To, convert(x.data<From>(), out->data<To>(), x.numel()));
  });
}

void cast_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad) {
  SKIFF_CHECK(is_differentiable(x.dtype()), "cast_grad: X is ", x.type_str(),
              "; only a floating or complex input has a gradient");
  cast(out_grad, x.dtype(), x_grad);
}

void increment(const Tensor& x, double step, Tensor* out) {
  SKIFF_CHECK(x.initialized(), "increment: the input tensor has no value");
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, {
    const T s = fill_value_as<T>(step);
    // Resize first: when out is x, this is what un-shares its storage.
    out->resize(x.shape(), x.dtype());
    const T* in = static_cast<const T*>(x.raw_data());  // dtypes equal by construction
    T* o = static_cast<T*>(out->raw_data());
    const int64_t n = x.numel();
    if (n == 1) {
      o[0] = in[0] + s;
    } else {
      parallel_for(n, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) o[i] = in[i] + s;
      });
    }
  });
}

}  // namespace skiff::kernels
