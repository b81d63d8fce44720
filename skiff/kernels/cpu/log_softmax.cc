#include "skiff/kernels/cpu/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/eigen.h"
#include "skiff/kernels/cpu/softmax.h"
#include "skiff/kernels/cpu/softmax_rows_isa.h"

namespace skiff::kernels {
namespace {

// An exponential per element: threads pay off earlier than for a memory-bound loop.
constexpr int64_t kExpGrain = 1 << 13;

// Runs fn(o, scratch) for every outer block o, on threads when the tensor is large;
// scratch holds 2 * inner values when inner > 1.
template <typename T, typename Fn>
void for_each_block(const AxisBlocks& s, Fn fn) {
  const int64_t block = std::max<int64_t>(s.block(), 1);
  parallel_for(s.outer, std::max<int64_t>(1, kExpGrain / block), [&](int64_t o0, int64_t o1) {
    std::vector<T> scratch(s.inner > 1 ? 2 * s.inner : 0);
    for (int64_t o = o0; o < o1; ++o) fn(o, scratch.data());
  });
}

// One contiguous row of n values (inner == 1). y may be x.
template <typename T>
void log_softmax_contiguous(const T* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {  // on the best ISA (softmax_rows_isa.h)
    dispatch_isa([&](auto isa) { log_softmax_row(isa, x, y, n); });
  } else {
    ArrayIn<T> xa(x, n);
    const T mx = xa.maxCoeff();
    const T lse = mx + std::log((xa - mx).exp().sum());
    ArrayOut<T>(y, n) = xa - lse;
  }
}

// One [n, inner] block, column by column through `scratch` (2 * inner values).
template <typename T>
void log_softmax_columns(const T* x, T* y, int64_t n, int64_t inner, T* scratch) {
  ArrayOut<T> mx(scratch, inner), sum(scratch + inner, inner);
  mx = ArrayIn<T>(x, inner);
  for (int64_t i = 1; i < n; ++i) mx = mx.max(ArrayIn<T>(x + i * inner, inner));
  sum.setZero();
  for (int64_t i = 0; i < n; ++i) sum += (ArrayIn<T>(x + i * inner, inner) - mx).exp();
  mx += sum.log();  // now log-sum-exp per column
  for (int64_t i = 0; i < n; ++i) {
    ArrayOut<T>(y + i * inner, inner) = ArrayIn<T>(x + i * inner, inner) - mx;
  }
}

template <typename T>
void log_softmax_grad_row(const T* y, const T* dy, T* dx, int64_t n) {
  const T total = ArrayIn<T>(dy, n).sum();
  ArrayOut<T>(dx, n) = ArrayIn<T>(dy, n) - ArrayIn<T>(y, n).exp() * total;
}

template <typename T>
void log_softmax_grad_columns(const T* y, const T* dy, T* dx, int64_t n, int64_t inner,
                              T* scratch) {
  ArrayOut<T> total(scratch, inner);
  total.setZero();
  for (int64_t i = 0; i < n; ++i) total += ArrayIn<T>(dy + i * inner, inner);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = i * inner;
    ArrayOut<T>(dx + r, inner) = ArrayIn<T>(dy + r, inner) - ArrayIn<T>(y + r, inner).exp() * total;
  }
}

}  // namespace

void log_softmax(const Tensor& x, int64_t axis, Tensor* out) {
  SKIFF_CHECK(is_floating(x.dtype()), "log_softmax: X must be float32 or float64, got ",
              x.type_str());
  const AxisBlocks s(x.shape(), normalize_axis("log_softmax", axis, x.rank()));
  out->resize(x.shape(), x.dtype());  // element by element after reading, so out may be x
  if (s.n == 0) return;
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    T* yp = out->data<T>();
    for_each_block<T>(s, [&](int64_t o, T* scratch) {
      const int64_t at = o * s.block();
      if (s.inner == 1) {
        log_softmax_contiguous(xp + at, yp + at, s.n);
      } else {
        log_softmax_columns(xp + at, yp + at, s.n, s.inner, scratch);
      }
    });
  });
}

void log_softmax_grad(const Tensor& out, const Tensor& out_grad, int64_t axis, Tensor* x_grad) {
  SKIFF_CHECK(out.shape() == out_grad.shape() && out.dtype() == out_grad.dtype(),
              "log_softmax_grad: Out is ", out.type_str(), " but Out@GRAD is ",
              out_grad.type_str());
  const AxisBlocks s(out.shape(), normalize_axis("log_softmax_grad", axis, out.rank()));
  x_grad->resize(out.shape(), out.dtype());  // sums are taken before writing, so it may alias
  if (s.n == 0) return;
  SKIFF_DISPATCH_FLOATING(out.dtype(), T, {
    const T* yp = out.data<T>();
    const T* dp = out_grad.data<T>();
    T* gp = x_grad->data<T>();
    for_each_block<T>(s, [&](int64_t o, T* scratch) {
      const int64_t at = o * s.block();
      if (s.inner == 1) {
        log_softmax_grad_row(yp + at, dp + at, gp + at, s.n);
      } else {
        log_softmax_grad_columns(yp + at, dp + at, gp + at, s.n, s.inner, scratch);
      }
    });
  });
}

}  // namespace skiff::kernels
