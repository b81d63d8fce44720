#include "skiff/kernels/cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/reduce_layout.h"

namespace skiff::kernels {
namespace {

// The sum of n contiguous values; float32 adds in float64 lanes, so long rows keep
// their precision at the same speed (the loop is bound by memory, not by the adds).
template <typename T>
T contiguous_sum(const T* p, int64_t n) {
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
  Acc s = Acc(0);
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += p[i];
  return static_cast<T>(s);
}

// Adds the sums of x into the zeroed out (accumulating in Acc) by fold_by_layout.
template <typename T, typename Acc>
void sum_into(const T* x, int64_t numel, const ReduceLayout& c, Acc* out) {
  fold_by_layout(
      x, numel, c, out, Acc(0),
      [](const auto* p, int64_t n, Acc acc) -> Acc { return acc + contiguous_sum(p, n); },
      [](Acc acc, T v) -> Acc { return acc + v; });
}

// Inputs from this many elements on sum float32 into float64 accumulators (many rows
// adding into one output would otherwise lose digits).
constexpr int64_t kWideSumElements = 1 << 12;

template <typename T>
void sum_typed(const T* x, int64_t numel, const ReduceLayout& c, T* out, int64_t out_numel) {
  if constexpr (std::is_same_v<T, float>) {
    if (numel >= kWideSumElements && numel > out_numel) {
      std::vector<double> acc(out_numel, 0.0);
      sum_into(x, numel, c, acc.data());
      for (int64_t i = 0; i < out_numel; ++i) out[i] = static_cast<float>(acc[i]);
      return;
    }
  }
  std::fill(out, out + out_numel, T(0));
  if (numel > 0) sum_into(x, numel, c, out);
}

// The number of elements each output sums.
int64_t reduced_count(const Shape& x, uint32_t axes) {
  int64_t n = 1;
  for (int d = 0; d < x.rank(); ++d)
    if ((axes >> d) & 1u) n *= x[d];
  return n;
}

template <typename T>
void broadcast_back(const T* g, const ReduceLayout& c, T scale, T* dx) {
  const int64_t len = c.row_length();
  const int64_t rows = c.rows();
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(len, 1)),
               [&](int64_t r0, int64_t r1) {
                 c.walk(r0, r1, [&](int64_t row, int64_t o) {
                   T* __restrict dst = dx + row * len;
                   if (c.inner_reduced()) {
                     const T v = g[o] * scale;
#pragma omp simd
                     for (int64_t j = 0; j < len; ++j) dst[j] = v;
                   } else {
                     const T* __restrict src = g + o;
#pragma omp simd
                     for (int64_t j = 0; j < len; ++j) dst[j] = src[j] * scale;
                   }
                 });
               });
}

template <typename T>
void divide_by_count(T* p, int64_t n, int64_t count) {
  if (count == 0) {
    std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
    return;
  }
  const T inv = T(1) / static_cast<T>(count);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) p[i] *= inv;
}

void reduce_grad(const Tensor& out_grad, const Shape& x_shape, uint32_t axes, bool mean,
                 Tensor* x_grad) {
  SKIFF_CHECK(out_grad.numel() == reduced_shape(x_shape, axes, true).numel(),
              "reduce grad: Out@GRAD ", out_grad.shape(), " does not match X ", x_shape,
              " reduced over its axes");
  Tensor own;
  Tensor* dst = x_grad == &out_grad ? &own : x_grad;
  dst->resize(x_shape, out_grad.dtype());
  const ReduceLayout c(x_shape, axes);
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T, {
    const T scale = mean ? T(1) / static_cast<T>(reduced_count(x_shape, axes)) : T(1);
    if (x_shape.numel() > 0) broadcast_back(out_grad.data<T>(), c, scale, dst->data<T>());
  });
  if (dst == &own) *x_grad = own;
}

}  // namespace

uint32_t reduce_axes(int rank, const std::vector<int64_t>& dims, bool reduce_all) {
  if (reduce_all || dims.empty()) return rank >= 32 ? ~0u : (1u << rank) - 1u;
  const int span = std::max(rank, 1);  // a rank-0 tensor accepts axis 0 / -1
  uint32_t axes = 0;
  for (int64_t d : dims) {
    SKIFF_CHECK(d >= -span && d < span, "reduce: dim ", d, " is out of range for a rank-", rank,
                " tensor (valid: [", -span, ", ", span - 1, "])");
    const int64_t axis = d < 0 ? d + span : d;
    SKIFF_CHECK(!((axes >> axis) & 1u), "reduce: dim ", d, " is given twice");
    axes |= 1u << axis;
  }
  return rank == 0 ? 0u : axes;
}

Shape reduced_shape(const Shape& x, uint32_t axes, bool keep_dim) {
  Shape out;
  for (int d = 0; d < x.rank(); ++d) {
    if (!((axes >> d) & 1u)) {
      out.push_back(x[d]);
    } else if (keep_dim) {
      out.push_back(1);
    }
  }
  return out;
}

void reduce_sum(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out) {
  Tensor own;
  Tensor* dst = out == &x ? &own : out;
  dst->resize(reduced_shape(x.shape(), axes, keep_dim), x.dtype());
  const ReduceLayout c(x.shape(), axes);
  SKIFF_DISPATCH_NUMERIC(x.dtype(), T,
                         sum_typed(x.data<T>(), x.numel(), c, dst->data<T>(), dst->numel()));
  if (dst == &own) *out = own;
}

void reduce_mean(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out) {
  SKIFF_CHECK(is_floating(x.dtype()), "reduce_mean: X must be float32 or float64, got ",
              x.type_str());
  reduce_sum(x, axes, keep_dim, out);
  const int64_t count = reduced_count(x.shape(), axes);
  SKIFF_DISPATCH_FLOATING(out->dtype(), T, divide_by_count(out->data<T>(), out->numel(), count));
}

void reduce_sum_grad(const Tensor& out_grad, const Shape& x_shape, uint32_t axes, Tensor* x_grad) {
  reduce_grad(out_grad, x_shape, axes, /*mean=*/false, x_grad);
}

void reduce_mean_grad(const Tensor& out_grad, const Shape& x_shape, uint32_t axes, Tensor* x_grad) {
  reduce_grad(out_grad, x_shape, axes, /*mean=*/true, x_grad);
}

}  // namespace skiff::kernels
