#include "skiff/kernels/cpu/reduce_extreme.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/nan.h"
#include "skiff/kernels/cpu/reduce.h"
#include "skiff/kernels/cpu/reduce_layout.h"

namespace skiff::kernels {
namespace {

// a and b are the same value (NaN matches NaN).
template <typename T>
bool same(T a, T b) {
  return a == b || (is_nan(a) && is_nan(b));
}

// The combining operations: identity() and a NaN-propagating operator().
template <typename T>
struct MaxOp {
  static T identity() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::lowest();
  }
  T operator()(T a, T b) const { return (b > a || is_nan(b)) ? b : a; }
};

template <typename T>
struct MinOp {
  static T identity() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::max();
  }
  T operator()(T a, T b) const { return (b < a || is_nan(b)) ? b : a; }
};

template <typename T>
struct ProdOp {
  static T identity() { return T(1); }
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {  // through unsigned: overflow wraps
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};

// Independent accumulators of a row fold, so that its loop vectorises.
constexpr int64_t kLanes = 16;

// op folded over n contiguous values, starting from `acc`.
template <typename T, typename Op>
T fold(const T* p, int64_t n, T acc, Op op) {
  int64_t i = 0;
  if (n >= kLanes) {
    T lanes[kLanes];
    std::fill(lanes, lanes + kLanes, Op::identity());
    for (; i + kLanes <= n; i += kLanes) {
#pragma omp simd
      for (int64_t l = 0; l < kLanes; ++l) lanes[l] = op(lanes[l], p[i + l]);
    }
    for (int64_t l = 0; l < kLanes; ++l) acc = op(acc, lanes[l]);
  }
  for (; i < n; ++i) acc = op(acc, p[i]);
  return acc;
}

// Folds x into out (holding the identity) by fold_by_layout.
template <typename T, typename Op>
void reduce_into(const T* x, int64_t numel, const ReduceLayout& c, T* out, Op op) {
  fold_by_layout(
      x, numel, c, out, Op::identity(),
      [op](const T* p, int64_t n, T acc) { return fold(p, n, acc, op); }, op);
}

// Names an operation template, so that reduce_with can instantiate it for each dtype.
template <template <typename> class OpT>
struct OpFamily {
  template <typename T>
  using Of = OpT<T>;
};

// out = Family's operation folded over the axes of x; out may be x. Without
// `empty_is_identity`, reducing zero elements into a non-empty output throws.
template <typename Family>
void reduce_with(const char* name, bool empty_is_identity, const Tensor& x, uint32_t axes,
                 bool keep_dim, Tensor* out) {
  Tensor own;
  Tensor* dst = out == &x ? &own : out;
  const Shape out_shape = reduced_shape(x.shape(), axes, keep_dim);
  SKIFF_CHECK(empty_is_identity || x.numel() > 0 || out_shape.numel() == 0, name, ": X ", x.shape(),
              " has no elements to reduce");
  dst->resize(out_shape, x.dtype());
  const ReduceLayout c(x.shape(), axes);
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T, {
    using TypedOp = typename Family::template Of<T>;
    T* o = dst->data<T>();
    std::fill(o, o + dst->numel(), TypedOp::identity());
    if (x.numel() > 0) reduce_into(x.data<T>(), x.numel(), c, o, TypedOp());
  });
  if (dst == &own) *out = own;
}

// The rows of x on threads: fn(row, out_offset) for each, in any order.
template <typename Fn>
void for_each_row(const ReduceLayout& c, Fn fn) {
  const int64_t len = std::max<int64_t>(c.row_length(), 1);
  parallel_for(c.rows(), std::max<int64_t>(1, kParallelGrain / len),
               [&](int64_t r0, int64_t r1) { c.walk(r0, r1, fn); });
}

template <typename T>
void extreme_grad_typed(const T* x, const T* out, const T* g, const ReduceLayout& c,
                        int64_t out_numel, T* dx) {
  const int64_t len = c.row_length();
  const bool inner = c.inner_reduced();
  std::vector<T> share(out_numel, T(0));  // ties per output, then the gradient each gets
  c.walk(0, c.rows(), [&](int64_t row, int64_t o) {
    const T* src = x + row * len;
    if (inner) {
      T ties = T(0);
#pragma omp simd reduction(+ : ties)
      for (int64_t j = 0; j < len; ++j) ties += same(src[j], out[o]) ? T(1) : T(0);
      share[o] += ties;
    } else {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) share[o + j] += same(src[j], out[o + j]) ? T(1) : T(0);
    }
  });
  for (int64_t o = 0; o < out_numel; ++o) share[o] = share[o] > T(0) ? g[o] / share[o] : T(0);
  for_each_row(c, [&](int64_t row, int64_t o) {
    const T* src = x + row * len;
    T* dst = dx + row * len;
    if (inner) {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) dst[j] = same(src[j], out[o]) ? share[o] : T(0);
    } else {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) dst[j] = same(src[j], out[o + j]) ? share[o + j] : T(0);
    }
  });
}

template <typename T>
void prod_grad_typed(const T* x, const T* g, const ReduceLayout& c, int64_t out_numel, T* dx) {
  const int64_t len = c.row_length();
  const bool inner = c.inner_reduced();
  std::vector<T> nonzero(out_numel, T(1));  // product of the non-zero elements
  std::vector<T> zeros(out_numel, T(0));    // count of zeros
  c.walk(0, c.rows(), [&](int64_t row, int64_t o) {
    const T* src = x + row * len;
    if (inner) {
      T p = T(1), z = T(0);
#pragma omp simd reduction(* : p) reduction(+ : z)
      for (int64_t j = 0; j < len; ++j) {
        p *= src[j] == T(0) ? T(1) : src[j];
        z += src[j] == T(0) ? T(1) : T(0);
      }
      nonzero[o] *= p;
      zeros[o] += z;
    } else {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) {
        nonzero[o + j] *= src[j] == T(0) ? T(1) : src[j];
        zeros[o + j] += src[j] == T(0) ? T(1) : T(0);
      }
    }
  });
  // Gradient of an element: g * nonzero / x without zeros; with one zero, g * nonzero at
  // the zero and 0 elsewhere; with more, 0.
  auto grad_of = [](T v, T grad, T nz, T z) {
    return z == T(0) ? grad * nz / v : (z == T(1) && v == T(0) ? grad * nz : T(0));
  };
  for_each_row(c, [&](int64_t row, int64_t o) {
    const T* src = x + row * len;
    T* dst = dx + row * len;
    if (inner) {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) dst[j] = grad_of(src[j], g[o], nonzero[o], zeros[o]);
    } else {
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) {
        dst[j] = grad_of(src[j], g[o + j], nonzero[o + j], zeros[o + j]);
      }
    }
  });
}

void check_reduced(const char* op, const Tensor& t, const char* slot, const Shape& x,
                   uint32_t axes) {
  SKIFF_CHECK(t.numel() == reduced_shape(x, axes, true).numel(), op, ": ", slot, " ", t.shape(),
              " does not match X ", x, " reduced over its axes");
}

}  // namespace

void reduce_extreme(Extreme kind, const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out) {
  if (kind == Extreme::kMax) {
    reduce_with<OpFamily<MaxOp>>("reduce_max", false, x, axes, keep_dim, out);
  } else {
    reduce_with<OpFamily<MinOp>>("reduce_min", false, x, axes, keep_dim, out);
  }
}

void reduce_prod(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out) {
  reduce_with<OpFamily<ProdOp>>("reduce_prod", true, x, axes, keep_dim, out);
}

void reduce_extreme_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, uint32_t axes,
                         Tensor* x_grad) {
  check_reduced("reduce_max/min grad", out, "Out", x.shape(), axes);
  check_reduced("reduce_max/min grad", out_grad, "Out@GRAD", x.shape(), axes);
  SKIFF_CHECK(x.dtype() == out.dtype() && x.dtype() == out_grad.dtype(), "reduce_max/min grad: X ",
              x.type_str(), ", Out ", out.type_str(), " and Out@GRAD ", out_grad.type_str(),
              " must share a dtype");
  Tensor own;
  Tensor* dst = (x_grad == &x || x_grad == &out || x_grad == &out_grad) ? &own : x_grad;
  dst->resize(x.shape(), x.dtype());
  const ReduceLayout c(x.shape(), axes);
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    if (x.numel() > 0) {
      extreme_grad_typed(x.data<T>(), out.data<T>(), out_grad.data<T>(), c, out.numel(),
                         dst->data<T>());
    }
  });
  if (dst == &own) *x_grad = own;
}

void reduce_prod_grad(const Tensor& x, const Tensor& out_grad, uint32_t axes, Tensor* x_grad) {
  check_reduced("reduce_prod_grad", out_grad, "Out@GRAD", x.shape(), axes);
  SKIFF_CHECK(x.dtype() == out_grad.dtype(), "reduce_prod_grad: X ", x.type_str(), " and Out@GRAD ",
              out_grad.type_str(), " must share a dtype");
  Tensor own;
  Tensor* dst = (x_grad == &x || x_grad == &out_grad) ? &own : x_grad;
  dst->resize(x.shape(), x.dtype());
  const ReduceLayout c(x.shape(), axes);
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    if (x.numel() > 0) {
      prod_grad_typed(x.data<T>(), out_grad.data<T>(), c, out_grad.numel(), dst->data<T>());
    }
  });
  if (dst == &own) *x_grad = own;
}

}  // namespace skiff::kernels
