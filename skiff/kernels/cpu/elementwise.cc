#include "skiff/kernels/cpu/elementwise.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/kernels/cpu/broadcast_plan.h"

namespace skiff::kernels {

namespace {

struct AddFn {
  template <typename T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct SubFn {
  template <typename T>
  T operator()(T a, T b) const {
    return a - b;
  }
};
struct MulFn {
  template <typename T>
  T operator()(T a, T b) const {
    return a * b;
  }
};
struct DivFn {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // min / -1 overflows (a hardware trap on x86): negate with wraparound instead.
      using U = std::make_unsigned_t<T>;
      return b == -1 ? static_cast<T>(U{0} - static_cast<U>(a)) : a / b;
    } else {
      return a / b;
    }
  }
};
// max / min propagate NaN from either side, like numpy.
struct MaxFn {
  template <typename T>
  T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};
struct MinFn {
  template <typename T>
  T operator()(T a, T b) const {
    return (a < b || a != a) ? a : b;
  }
};

// out[i] = f(x[i * xs], y[i * ys]) for i < n; the strides are 0 or 1 after coalescing.
// `omp simd` vectorises at -O2 too (GCC's default -O2 cost model skips loops that need
// a remainder loop) and allows out to be x or y itself (no loop-carried dependence).
template <typename T, typename F>
void binary_run(const T* x, const T* y, T* out, int64_t n, int64_t xs, int64_t ys, F f) {
  if (xs == 1 && ys == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], y[i]);
  } else if (xs == 1 && ys == 0) {
    const T b = y[0];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i], b);
  } else if (xs == 0 && ys == 1) {
    const T a = x[0];
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = f(a, y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * xs], y[i * ys]);
  }
}

// bfloat16: blocks widened to float32, f applied, each result rounded once (strides 0 or 1).
template <typename F>
void binary_run(const bfloat16* x, const bfloat16* y, bfloat16* out, int64_t n, int64_t xs,
                int64_t ys, F f) {
  constexpr int64_t kBlock = 256;
  float a[kBlock], b[kBlock], r[kBlock];
  if (xs == 0) bf16_to_float(x, a, 1);  // a broadcast operand is read once, up front
  if (ys == 0) bf16_to_float(y, b, 1);
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    if (xs) bf16_to_float(x + i, a, len);
    if (ys) bf16_to_float(y + i, b, len);
    binary_run(a, b, r, len, xs, ys, f);
    float_to_bf16(r, out + i, len);
  }
}

template <typename T>
void check_no_zero_divisor(const Tensor& y) {
  const T* p = y.data<T>();
  const int64_t n = y.numel();
  bool zero = false;
#pragma omp simd reduction(| : zero)
  for (int64_t i = 0; i < n; ++i) zero |= (p[i] == 0);
  SKIFF_CHECK(!zero, "integer division by zero: divisor Y (", y.type_str(), ") holds a 0");
}

// Runs fn(begin, end) over [0, n); threads only past the grain, decided up front.
template <typename Fn>
void run_split(int64_t n, Fn&& fn) {
  if (n < 2 * kParallelGrain) {
    fn(int64_t{0}, n);
  } else {
    parallel_for(n, kParallelGrain, fn);
  }
}

// fn(F{}) with the functor F of `op`.
template <typename Fn>
void with_binary_fn(BinaryOp op, Fn&& fn) {
  switch (op) {
    case BinaryOp::kAdd:
      return fn(AddFn{});
    case BinaryOp::kSub:
      return fn(SubFn{});
    case BinaryOp::kMul:
      return fn(MulFn{});
    case BinaryOp::kDiv:
      return fn(DivFn{});
    case BinaryOp::kMax:
      return fn(MaxFn{});
    case BinaryOp::kMin:
      return fn(MinFn{});
  }
}

// out = x <op> y over n elements of equal-shaped operands, on this thread.
template <typename T>
void binary_block(BinaryOp op, const T* x, const T* y, T* out, int64_t n) {
  with_binary_fn(op, [&](auto f) { binary_run(x, y, out, n, 1, 1, f); });
}

template <typename T, typename F>
void apply_binary_typed(const Tensor& x, const Tensor& y, Tensor* out, OperandLayout layout,
                        int axis) {
  if constexpr (std::is_integral_v<T> && std::is_same_v<F, DivFn>) check_no_zero_divisor<T>(y);
  const T* xp = x.data<T>();
  const T* yp = y.data<T>();
  T* op = out->data<T>();
  const int64_t n = out->numel();
  if (layout != OperandLayout::kBroadcast) {
    const int64_t xs = layout == OperandLayout::kScalarX ? 0 : 1;
    const int64_t ys = layout == OperandLayout::kScalarY ? 0 : 1;
    run_split(n, [&](int64_t b, int64_t e) {
      binary_run(xp + b * xs, yp + b * ys, op + b, e - b, xs, ys, F{});
    });
  } else if (n > 0) {
    const BroadcastPlan plan = make_broadcast_plan(x.shape(), y.shape(), out->shape(), axis);
    const int64_t xs = plan.inner_x_stride(), ys = plan.inner_y_stride();
    run_split(n, [&](int64_t b, int64_t e) {
      for_each_run(plan, b, e, [&](int64_t o, int64_t xo, int64_t yo, int64_t len) {
        binary_run(xp + xo, yp + yo, op + o, len, xs, ys, F{});
      });
    });
  }
}

template <typename F>
void apply_binary(const Tensor& x, const Tensor& y, Tensor* out, OperandLayout layout, int axis) {
  if (x.dtype() == DType::kBF16) return apply_binary_typed<bfloat16, F>(x, y, out, layout, axis);
  if (is_complex(x.dtype())) {
    if constexpr (std::is_same_v<F, MaxFn> || std::is_same_v<F, MinFn>) {
      fail("elementwise max/min: complex numbers are not ordered (got ", x.type_str(), ")");
    } else {
      SKIFF_DISPATCH_COMPLEX(x.dtype(), T, apply_binary_typed<T, F>(x, y, out, layout, axis));
    }
    return;
  }
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, apply_binary_typed<T, F>(x, y, out, layout, axis));
}

void apply_binary_op(BinaryOp op, const Tensor& x, const Tensor& y, Tensor* out,
                     OperandLayout layout, int axis) {
  with_binary_fn(op, [&](auto f) { apply_binary<decltype(f)>(x, y, out, layout, axis); });
}

template <typename T>
void scale_typed(const T* x, T* out, int64_t n, double s, double b) {
  if constexpr (!std::is_arithmetic_v<T>) {  // complex: real scale and bias
    using R = typename T::value_type;
    const R st = static_cast<R>(s), bt = static_cast<R>(b);
    for (int64_t i = 0; i < n; ++i) out[i] = st * x[i] + bt;
  } else if constexpr (std::is_floating_point_v<T>) {
    const T st = static_cast<T>(s), bt = static_cast<T>(b);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = st * x[i] + bt;
  } else if (std::trunc(s) == s && std::trunc(b) == b) {
    const T st = static_cast<T>(s), bt = static_cast<T>(b);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = st * x[i] + bt;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s * static_cast<double>(x[i]) + b);
  }
}

}  // namespace

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSub:
      return "sub";
    case BinaryOp::kMul:
      return "mul";
    case BinaryOp::kDiv:
      return "div";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kMin:
      return "min";
  }
  return "?";
}

Shape broadcast_shape(const Shape& x, const Shape& y, int axis) {
  Shape xa, ya;
  align_for_broadcast(x, y, axis, &xa, &ya);
  Shape out = xa;
  for (int i = 0; i < xa.rank(); ++i) {
    const int64_t a = xa[i], b = ya[i];
    if (a == b || b == 1) {
      out[i] = a;
    } else if (a == 1) {
      out[i] = b;
    } else if (a < 0 || b < 0) {  // unknown vs. known > 1: it must turn out equal or 1
      out[i] = a < 0 ? b : a;
    } else {
      fail("shapes ", x, " and ", y, " cannot be broadcast (axis=", axis, "): aligned as ", xa,
           " and ", ya, ", dim ", i, " is ", a, " vs. ", b);
    }
  }
  return out;
}

void elementwise_binary(BinaryOp op, const Tensor& x_in, const Tensor& y_in, Tensor* out,
                        int axis) {
  SKIFF_CHECK(x_in.dtype() == y_in.dtype(), "elementwise ", binary_op_name(op), ": X is ",
              x_in.type_str(), " but Y is ", y_in.type_str(), "; both need the same dtype");
  if (x_in.shape() == y_in.shape()) {  // the hot path: no shape work, no allocation
    out->resize(x_in.shape(), x_in.dtype());
    return apply_binary_op(op, x_in, y_in, out, OperandLayout::kSameOrder, axis);
  }
  const Shape out_shape = broadcast_shape(x_in.shape(), y_in.shape(), axis);
  // When `out` is an input that is about to change size, keep that input's storage.
  Tensor kept;
  const Tensor* x = &x_in;
  const Tensor* y = &y_in;
  if (out == x && x->shape() != out_shape) {
    kept = *x;
    x = &kept;
  } else if (out == y && y->shape() != out_shape) {
    kept = *y;
    y = &kept;
  }
  out->resize(out_shape, x->dtype());
  apply_binary_op(op, *x, *y, out, operand_layout(x->numel(), y->numel(), out->numel()), axis);
}

void elementwise_binary_activation(BinaryOp op, const Tensor& x, const Tensor& y, Activation act,
                                   Tensor* out, int axis) {
  SKIFF_CHECK((x.dtype() == DType::kF32 || x.dtype() == DType::kF64) && x.dtype() == y.dtype(),
              "elementwise ", binary_op_name(op), " with a fused ", activation_name(act),
              ": X and Y must both be float32 or both float64, got ", x.type_str(), " and ",
              y.type_str());
  if (x.shape() != y.shape()) {  // broadcast: the sums first, then the activation over them
    elementwise_binary(op, x, y, out, axis);
    activation(act, *out, out);
    return;
  }
  // Equal shapes: each block's results get the activation while they are in cache.
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    T* op_out = out->data<T>();
    run_split(x.numel(), [&](int64_t begin, int64_t end) {
      constexpr int64_t kBlock = 1024;
      for (int64_t b = begin; b < end; b += kBlock) {
        const int64_t len = std::min(kBlock, end - b);
        binary_block(op, xp + b, yp + b, op_out + b, len);
        activation_values(act, op_out + b, op_out + b, len);
      }
    });
  });
}

void scale(const Tensor& x, double s, double bias, bool bias_after_scale, Tensor* out) {
  const double b = bias_after_scale ? bias : s * bias;
  out->resize(x.shape(), x.dtype());
  auto run = [&](auto* typed) {
    using T = std::remove_pointer_t<decltype(typed)>;
    const T* xp = x.data<T>();
    T* op = out->data<T>();
    const int64_t n = x.numel();
    run_split(n, [&](int64_t lo, int64_t hi) { scale_typed(xp + lo, op + lo, hi - lo, s, b); });
  };
  if (is_complex(x.dtype())) {
    SKIFF_DISPATCH_COMPLEX(x.dtype(), T, run(static_cast<T*>(nullptr)));
    return;
  }
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, run(static_cast<T*>(nullptr)));
}

}  // namespace skiff::kernels
