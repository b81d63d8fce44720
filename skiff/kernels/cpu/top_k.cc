#include "skiff/kernels/cpu/top_k.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/nan.h"
#include "skiff/kernels/cpu/softmax.h"

namespace skiff::kernels {
namespace {

// x ranks above y when values are ordered with NaN above every number.
template <typename T>
bool ranks_above(T x, T y) {
  return x > y || (is_nan(x) && !is_nan(y));
}

// Orders positions of one contiguous row: the better value first, ties by position.
template <typename T>
struct RowOrder {
  const T* v;
  bool largest;
  bool operator()(int64_t a, int64_t b) const {
    const T x = v[a], y = v[b];
    if (largest ? ranks_above(x, y) : ranks_above(y, x)) return true;
    if (largest ? ranks_above(y, x) : ranks_above(x, y)) return false;
    return a < b;
  }
};

// Rows of an [outer, n, inner] tensor along the axis, on threads when the work is large:
// fn(o, j0, j1) handles columns [j0, j1) of outer block o.
template <typename Fn>
void for_each_column_range(const AxisBlocks& s, int64_t work_per_row, Fn fn) {
  const int64_t rows = s.outer * s.inner;
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(work_per_row, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1;) {
                   const int64_t o = r / s.inner, j0 = r % s.inner;
                   const int64_t j1 = std::min(s.inner, j0 + (r1 - r));
                   fn(o, j0, j1);
                   r += j1 - j0;
                 }
               });
}

// The first extreme (or NaN) of n contiguous values.
template <typename T>
int64_t arg_extreme_row(const T* p, int64_t n, bool largest) {
  int64_t best = 0;
  T value = p[0];
  for (int64_t i = 1; i < n && !is_nan(value); ++i) {
    if (is_nan(p[i]) || (largest ? p[i] > value : p[i] < value)) {
      value = p[i];
      best = i;
    }
  }
  return best;
}

// The first extreme (or NaN) of columns [j0, j1) of one [n, inner] block, side by side.
template <typename T>
void arg_extreme_columns(const T* p, int64_t n, int64_t inner, int64_t j0, int64_t j1, bool largest,
                         T* value, int64_t* best) {
  for (int64_t j = j0; j < j1; ++j) {
    value[j - j0] = p[j];
    best[j - j0] = 0;
  }
  for (int64_t i = 1; i < n; ++i) {
    const T* row = p + i * inner + j0;
#pragma omp simd
    for (int64_t j = 0; j < j1 - j0; ++j) {
      const T v = row[j];
      const bool take = !is_nan(value[j]) && (is_nan(v) || (largest ? v > value[j] : v < value[j]));
      value[j] = take ? v : value[j];
      best[j] = take ? i : best[j];
    }
  }
}

template <typename T>
void arg_extreme_typed(const T* x, const AxisBlocks& s, bool largest, int64_t* out) {
  for_each_column_range(s, s.n, [&](int64_t o, int64_t j0, int64_t j1) {
    const T* block = x + o * s.block();
    if (s.inner == 1) {
      out[o] = arg_extreme_row(block, s.n, largest);
    } else {
      constexpr int64_t kColumns = 256;  // a stack buffer of running extremes
      T value[kColumns];
      for (int64_t c0 = j0; c0 < j1; c0 += kColumns) {
        const int64_t c1 = std::min(j1, c0 + kColumns);
        arg_extreme_columns(block, s.n, s.inner, c0, c1, largest, value, out + o * s.inner + c0);
      }
    }
  });
}

// Up to this k, top_k keeps a sorted list of the best positions seen and rejects most
// elements with one comparison against the worst of them; past it, nth_element.
constexpr int64_t kFewK = 64;

// best[0, k) = the k best positions of row[0, n) (k <= n), best first.
template <typename T>
void select_best(const RowOrder<T>& better, int64_t n, int64_t k, int64_t* best) {
  if (k <= kFewK) {
    std::iota(best, best + k, int64_t{0});
    std::sort(best, best + k, better);
    for (int64_t i = k; i < n; ++i) {
      if (k == 0 || !better(i, best[k - 1])) continue;
      int64_t* at = std::upper_bound(best, best + k - 1, i, better);
      std::move_backward(at, best + k - 1, best + k);
      *at = i;
    }
    return;
  }
  std::iota(best, best + n, int64_t{0});
  if (k < n) std::nth_element(best, best + k, best + n, better);
  std::sort(best, best + k, better);
}

template <typename T>
void top_k_typed(const T* x, const AxisBlocks& s, int64_t k, bool largest, bool sorted, T* values,
                 int64_t* indices) {
  for_each_column_range(s, s.n * 8, [&](int64_t o, int64_t j0, int64_t j1) {
    // Kept per thread across calls: no allocation once a thread has seen a row this long.
    thread_local std::vector<int64_t> order;
    thread_local std::vector<T> column;
    order.resize(s.n);
    if (s.inner > 1) column.resize(s.n);
    for (int64_t j = j0; j < j1; ++j) {
      const T* row = x + o * s.block() + j;
      if (s.inner > 1) {
        for (int64_t i = 0; i < s.n; ++i) column[i] = row[i * s.inner];
        row = column.data();
      }
      select_best(RowOrder<T>{row, largest}, s.n, k, order.data());
      if (!sorted) std::sort(order.begin(), order.begin() + k);
      const int64_t base = o * k * s.inner + j;
      for (int64_t t = 0; t < k; ++t) {
        values[base + t * s.inner] = row[order[t]];
        indices[base + t * s.inner] = order[t];
      }
    }
  });
}

template <typename T>
void scatter_typed(const int64_t* indices, const T* g, const AxisBlocks& s, int64_t k, T* dx) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t t = 0; t < k; ++t) {
      const int64_t from = (o * k + t) * s.inner;
      for (int64_t j = 0; j < s.inner; ++j) {
        const int64_t i = indices[from + j];
        SKIFF_CHECK(i >= 0 && i < s.n, "top_k_grad: index ", i, " is out of range for an axis of ",
                    s.n);
        dx[(o * s.n + i) * s.inner + j] += g[from + j];
      }
    }
  }
}

}  // namespace

Shape arg_extreme_shape(const char* op, const Shape& x, int64_t axis, bool keepdims, bool flatten) {
  if (flatten) {
    Shape out;
    if (keepdims)
      for (int d = 0; d < x.rank(); ++d) out.push_back(1);
    return out;
  }
  const int a = normalize_axis(op, axis, x.rank());
  Shape out;
  for (int d = 0; d < x.rank(); ++d) {
    if (d != a) {
      out.push_back(x[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

void arg_extreme(const Tensor& x, bool largest, int64_t axis, bool keepdims, bool flatten,
                 Tensor* out) {
  const char* op = largest ? "argmax" : "argmin";
  const Shape out_shape = arg_extreme_shape(op, x.shape(), axis, keepdims, flatten);
  const int a = flatten ? 0 : normalize_axis(op, axis, x.rank());
  const AxisBlocks s = flatten ? AxisBlocks(Shape{x.numel()}, 0) : AxisBlocks(x.shape(), a);
  SKIFF_CHECK(s.n > 0 || out_shape.numel() == 0, op, ": X ", x.shape(),
              " has no elements along the axis");
  Tensor own;
  Tensor* dst = out == &x ? &own : out;
  dst->resize(out_shape, DType::kI64);
  if (out_shape.numel() > 0) {
    SKIFF_DISPATCH_NUMERIC(x.dtype(), T,
                           arg_extreme_typed(x.data<T>(), s, largest, dst->data<int64_t>()));
  }
  if (dst == &own) *out = own;
}

Shape top_k_shape(const Shape& x, int64_t k, int64_t axis) {
  const int a = normalize_axis("top_k", axis, x.rank());
  const int64_t n = x.rank() ? x[a] : 1;
  SKIFF_CHECK(k >= 0 && (n < 0 || k <= n), "top_k: k = ", k, " is out of range for X ", x,
              " along axis ", axis, " (valid: [0, ", n, "])");
  SKIFF_CHECK(x.rank() > 0 || k == 1, "top_k: k must be 1 for a rank-0 X, got ", k);
  Shape out = x;
  if (out.rank()) out[a] = k;
  return out;
}

void top_k(const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted, Tensor* values,
           Tensor* indices) {
  const Shape out_shape = top_k_shape(x.shape(), k, axis);
  const AxisBlocks s(x.shape(), normalize_axis("top_k", axis, x.rank()));
  Tensor own_values, own_indices;
  Tensor* v = values == &x ? &own_values : values;
  Tensor* i = indices == &x ? &own_indices : indices;
  v->resize(out_shape, x.dtype());
  i->resize(out_shape, DType::kI64);
  if (out_shape.numel() > 0) {
    SKIFF_DISPATCH_NUMERIC(
        x.dtype(), T,
        top_k_typed(x.data<T>(), s, k, largest, sorted, v->data<T>(), i->data<int64_t>()));
  }
  if (v == &own_values) *values = own_values;
  if (i == &own_indices) *indices = own_indices;
}

void top_k_grad(const Tensor& indices, const Tensor& values_grad, const Shape& x_shape,
                int64_t axis, Tensor* x_grad) {
  const int a = normalize_axis("top_k_grad", axis, x_shape.rank());
  const int64_t k = x_shape.rank() ? indices.shape().dim(a) : 1;
  SKIFF_CHECK(indices.dtype() == DType::kI64 && indices.shape() == values_grad.shape() &&
                  indices.shape() == top_k_shape(x_shape, k, axis),
              "top_k_grad: Indices ", indices.type_str(), " and Out@GRAD ", values_grad.type_str(),
              " must be int64 and X ", x_shape, " with the axis dim set to k");
  Tensor own;
  Tensor* dst = (x_grad == &indices || x_grad == &values_grad) ? &own : x_grad;
  dst->resize(x_shape, values_grad.dtype());
  SKIFF_DISPATCH_FLOATING(values_grad.dtype(), T, {
    std::fill(dst->data<T>(), dst->data<T>() + dst->numel(), T(0));
    scatter_typed(indices.data<int64_t>(), values_grad.data<T>(), AxisBlocks(x_shape, a), k,
                  dst->data<T>());
  });
  if (dst == &own) *x_grad = own;
}

}  // namespace skiff::kernels
