#include "skiff/kernels/cpu/binary_math.h"

#include <cmath>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/special_functions.h"
#include "skiff/kernels/cpu/strided_walk.h"

namespace skiff::kernels {

const char* binary_math_op(BinaryMath f) {
  switch (f) {
    case BinaryMath::kPow:
      return "elementwise_pow";
    case BinaryMath::kMod:
      return "elementwise_mod";
    case BinaryMath::kFloorDiv:
      return "elementwise_floordiv";
    case BinaryMath::kAtan2:
      return "atan2";
    case BinaryMath::kBitAnd:
      return "bitwise_and";
    case BinaryMath::kBitOr:
      return "bitwise_or";
    case BinaryMath::kBitXor:
      return "bitwise_xor";
    case BinaryMath::kShiftLeft:
      return "bitwise_left_shift";
    case BinaryMath::kShiftRight:
    case BinaryMath::kShiftRightLogical:
      return "bitwise_right_shift";
    case BinaryMath::kGcd:
      return "gcd";
    case BinaryMath::kLcm:
      return "lcm";
    case BinaryMath::kGammainc:
      return "gammainc";
    case BinaryMath::kGammaincc:
      return "gammaincc";
    case BinaryMath::kNextafter:
      return "nextafter";
  }
  return "?";
}

bool is_integer_math(BinaryMath f) {
  return static_cast<int>(f) >= static_cast<int>(BinaryMath::kBitAnd) &&
         static_cast<int>(f) <= static_cast<int>(BinaryMath::kLcm);
}

namespace {

bool is_float_math(BinaryMath f) {
  return f == BinaryMath::kAtan2 || f == BinaryMath::kGammainc || f == BinaryMath::kGammaincc ||
         f == BinaryMath::kNextafter;
}

}  // namespace

namespace {

// The walk over `out` reading x and y (operands 0, 1) by broadcasting.
StridedWalk<2> binary_walk(const Shape& x, const Shape& y, const Shape& out) {
  int64_t xs[Shape::kMaxRank], ys[Shape::kMaxRank];
  broadcast_strides(x, out, xs);
  broadcast_strides(y, out, ys);
  StridedWalk<2> w;
  for (int d = 0; d < out.rank(); ++d) w.push(out[d], {xs[d], ys[d]});
  return w;
}

// Integer operands the op cannot take (checked before any thread starts): a zero
// divisor, a negative power.
template <typename T>
void check_int_operand(BinaryMath f, const Tensor& y) {
  if constexpr (!std::is_floating_point_v<T>) {
    const T* p = y.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      SKIFF_CHECK(f != BinaryMath::kPow || p[i] >= 0,
                  "elementwise_pow: integers to negative "
                  "powers (",
                  p[i], ") are not integers; cast to float first");
      SKIFF_CHECK(f == BinaryMath::kPow || p[i] != 0, binary_math_op(f),
                  ": integer division by zero");
    }
  }
}

// Integer results that overflow wrap around (as numpy's do), computed in the unsigned
// type: signed overflow is undefined, and min / -1 traps on x86.
template <typename T>
T int_pow(T base, T exp) {
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  while (exp) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T>
T floored_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(a, b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
    return r;
  } else {
    if (b == -1) return T(0);  // min % -1 traps; every integer is a multiple of -1
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

template <typename T>
T floored_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::floor(a / b);
  } else {
    using U = std::make_unsigned_t<T>;
    if (b == -1) return static_cast<T>(U{0} - static_cast<U>(a));  // min // -1 is min
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <typename T>
T compute(BinaryMath f, T a, T b) {
  switch (f) {
    case BinaryMath::kPow:
      if constexpr (std::is_floating_point_v<T>) {
        return std::pow(a, b);
      } else {
        return int_pow(a, b);
      }
    case BinaryMath::kMod:
      return floored_mod(a, b);
    case BinaryMath::kFloorDiv:
      return floored_div(a, b);
    case BinaryMath::kAtan2:
      if constexpr (std::is_floating_point_v<T>) return std::atan2(a, b);
      break;
    case BinaryMath::kGammainc:
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(gamma_p(a, b));
      break;
    case BinaryMath::kGammaincc:
      if constexpr (std::is_floating_point_v<T>) return static_cast<T>(gamma_q(a, b));
      break;
    case BinaryMath::kNextafter:
      if constexpr (std::is_floating_point_v<T>) return std::nextafter(a, b);
      break;
    default:
      break;
  }
  return T(0);
}

// Shifts go through the unsigned type: defined for negative x and for bits shifted out.
template <typename T>
T shift(BinaryMath f, T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  const bool inside = b >= 0 && b < kBits;
  switch (f) {
    case BinaryMath::kShiftLeft:
      return inside ? static_cast<T>(static_cast<U>(a) << b) : T(0);
    case BinaryMath::kShiftRight:
      return inside ? static_cast<T>(a >> b) : static_cast<T>(a < 0 ? -1 : 0);
    default:
      return inside ? static_cast<T>(static_cast<U>(a) >> b) : T(0);
  }
}

template <typename T>
T gcd_of(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U x = a < 0 ? U(0) - static_cast<U>(a) : static_cast<U>(a);
  U y = b < 0 ? U(0) - static_cast<U>(b) : static_cast<U>(b);
  while (y != 0) {
    const U r = x % y;
    x = y;
    y = r;
  }
  return static_cast<T>(x);
}

template <typename T>
T integer_compute(BinaryMath f, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return f == BinaryMath::kBitAnd ? (a && b) : f == BinaryMath::kBitOr ? (a || b) : (a != b);
  } else {
    switch (f) {
      case BinaryMath::kBitAnd:
        return a & b;
      case BinaryMath::kBitOr:
        return a | b;
      case BinaryMath::kBitXor:
        return a ^ b;
      case BinaryMath::kGcd:
        return gcd_of(a, b);
      case BinaryMath::kLcm: {
        if (a == 0 || b == 0) return T(0);
        using U = std::make_unsigned_t<T>;
        const U g = static_cast<U>(gcd_of(a, b));  // 2^(bits-1) for gcd(min, min): as U
        const U x = a < 0 ? U(0) - static_cast<U>(a) : static_cast<U>(a);
        const U y = b < 0 ? U(0) - static_cast<U>(b) : static_cast<U>(b);
        return static_cast<T>(x / g * y);  // wraps past the type's range, as numpy's
      }
      default:
        return shift(f, a, b);
    }
  }
}

// out = fn(a[i], b[i]) over the broadcast walk (operands 0 and 1), threaded past the grain.
template <typename T, typename Fn>
void broadcast_apply(const Tensor& a, const Tensor& b, Tensor* out, Fn fn) {
  const Shape& shape = out->shape();
  const StridedWalk<2> w = binary_walk(a.shape(), b.shape(), shape);
  const int64_t len = w.row_length(), as = w.inner_stride(0), bs = w.inner_stride(1);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* o = out->data<T>();
  parallel_for(w.rows(), std::max<int64_t>(1, kParallelGrain / len), [&](int64_t lo, int64_t hi) {
    walk_rows(w, lo, hi, [&](int64_t row, const int64_t* off) {
      const T* ra = pa + off[0];
      const T* rb = pb + off[1];
      T* ro = o + row * len;
      for (int64_t i = 0; i < len; ++i) ro[i] = fn(ra[i * as], rb[i * bs]);
    });
  });
}

// The integer ops: int32/int64 for all, bool for and/or/xor.
void integer_math(BinaryMath f, const Tensor& a, const Tensor& b, Tensor* out) {
  const bool bool_ok =
      f == BinaryMath::kBitAnd || f == BinaryMath::kBitOr || f == BinaryMath::kBitXor;
  switch (a.dtype()) {
    case DType::kI32:
      broadcast_apply<int32_t>(a, b, out,
                               [f](int32_t u, int32_t v) { return integer_compute(f, u, v); });
      return;
    case DType::kI64:
      broadcast_apply<int64_t>(a, b, out,
                               [f](int64_t u, int64_t v) { return integer_compute(f, u, v); });
      return;
    case DType::kBool:
      if (bool_ok) {
        broadcast_apply<bool>(a, b, out, [f](bool u, bool v) { return integer_compute(f, u, v); });
        return;
      }
      break;
    default:
      break;
  }
  fail(binary_math_op(f), ": X and Y must be int32 or int64", bool_ok ? " or bool" : "", ", got ",
       a.type_str());
}

}  // namespace

void bitwise_not(const Tensor& x, Tensor* out) {
  const Tensor a = input_handle(x);
  out->resize(a.shape(), a.dtype());
  const int64_t n = a.numel();
  switch (a.dtype()) {
    case DType::kI32: {
      const int32_t* p = a.data<int32_t>();
      int32_t* o = out->data<int32_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = ~p[i];
      return;
    }
    case DType::kI64: {
      const int64_t* p = a.data<int64_t>();
      int64_t* o = out->data<int64_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = ~p[i];
      return;
    }
    case DType::kBool: {
      const bool* p = a.data<bool>();
      bool* o = out->data<bool>();
      for (int64_t i = 0; i < n; ++i) o[i] = !p[i];
      return;
    }
    default:
      fail("bitwise_not: X must be int32, int64 or bool, got ", a.type_str());
  }
}

void binary_math(BinaryMath f, const Tensor& x, const Tensor& y, Tensor* out) {
  SKIFF_CHECK(x.dtype() == y.dtype(), binary_math_op(f), ": X is ", x.type_str(), " but Y is ",
              y.type_str(), "; both need the same dtype");
  SKIFF_CHECK(!is_float_math(f) || x.dtype() == DType::kF32 || x.dtype() == DType::kF64,
              binary_math_op(f), ": X and Y must be float32 or float64, got ", x.type_str());
  const Shape shape = broadcast_shape(x.shape(), y.shape());
  const Tensor a = input_handle(x), b = input_handle(y);
  out->resize(shape, a.dtype());
  if (shape.numel() == 0) return;
  if (is_integer_math(f)) return integer_math(f, a, b, out);
  SKIFF_DISPATCH_NUMERIC(a.dtype(), T, {
    check_int_operand<T>(f, b);
    broadcast_apply<T>(a, b, out, [f](T u, T v) { return compute<T>(f, u, v); });
  });
}

void binary_math_grad(BinaryMath f, const Tensor& x, const Tensor& y, const Tensor& out,
                      const Tensor& dout, Tensor* dx, Tensor* dy) {
  SKIFF_CHECK(f != BinaryMath::kFloorDiv && f != BinaryMath::kNextafter, binary_math_op(f),
              " has no gradient");
  const bool gamma = f == BinaryMath::kGammainc || f == BinaryMath::kGammaincc;
  SKIFF_CHECK(!gamma || !dx, binary_math_op(f), "_grad: X has no gradient (only Y does)");
  const Shape& shape = dout.shape();
  if (dx) *dx = Tensor::zeros(x.shape(), x.dtype());
  if (dy) *dy = Tensor::zeros(y.shape(), y.dtype());
  if (shape.numel() == 0 || (!dx && !dy)) return;
  const StridedWalk<2> w = binary_walk(x.shape(), y.shape(), shape);
  const int64_t len = w.row_length(), as = w.inner_stride(0), bs = w.inner_stride(1);
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* pa = x.data<T>();
    const T* pb = y.data<T>();
    const T* po = f == BinaryMath::kPow ? out.data<T>() : nullptr;
    const T* g = dout.data<T>();
    T* gx = dx ? dx->data<T>() : nullptr;
    T* gy = dy ? dy->data<T>() : nullptr;
    walk_rows(w, 0, w.rows(), [&](int64_t row, const int64_t* off) {
      for (int64_t i = 0; i < len; ++i) {
        const int64_t o = row * len + i, ia = off[0] + i * as, ib = off[1] + i * bs;
        const T a = pa[ia], b = pb[ib];
        if (f == BinaryMath::kPow) {
          if (gx) gx[ia] += g[o] * (b == T(0) ? T(0) : b * std::pow(a, b - T(1)));
          if (gy) gy[ib] += g[o] * (a == T(0) && b >= T(0) ? T(0) : po[o] * std::log(a));
        } else if (gamma) {
          const T d = static_cast<T>(gamma_p_derivative(a, b)) * g[o];
          if (gy) gy[ib] += f == BinaryMath::kGammainc ? d : -d;
        } else if (f == BinaryMath::kAtan2) {
          const T scale = g[o] / (a * a + b * b);
          if (gx) gx[ia] += b * scale;
          if (gy) gy[ib] -= a * scale;
        } else {
          if (gx) gx[ia] += g[o];
          if (gy) gy[ib] -= g[o] * std::floor(a / b);
        }
      }
    });
  });
}

}  // namespace skiff::kernels
