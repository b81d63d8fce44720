#include "skiff/kernels/cpu/sequence_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/axis.h"
#include "skiff/kernels/cpu/fill.h"
#include "skiff/kernels/cpu/input_handle.h"

namespace skiff::kernels {
namespace {

// Running sums of one row of n values (in memory order, or reversed with step -1).
template <typename T>
void scan_row(const T* x, T* out, int64_t n, int64_t step, bool exclusive) {
  T acc = T(0);
  if (exclusive) {
    for (int64_t k = 0; k < n; ++k) {
      const T v = x[k * step];
      out[k * step] = acc;
      acc += v;
    }
  } else {
    for (int64_t k = 0; k < n; ++k) out[k * step] = acc += x[k * step];
  }
}

// Running sums over the middle dim of x viewed as [outer, n, inner]: element by
// element when inner == 1, else whole rows of `inner` elements added at a time.
template <typename T>
void running_sums(const T* x, T* out, int64_t outer, int64_t n, int64_t inner, bool exclusive,
                  bool reverse) {
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / (n * inner));
  const int64_t step = reverse ? -inner : inner;
  const int64_t first = reverse ? (n - 1) * inner : 0;
  parallel_for(outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* xs = x + o * n * inner + first;
      T* os = out + o * n * inner + first;
      if (inner == 1) {
        scan_row(xs, os, n, step, exclusive);
        continue;
      }
      for (int64_t i = 0; i < inner; ++i) os[i] = exclusive ? T(0) : xs[i];
      for (int64_t k = 1; k < n; ++k) {
        const T* add = xs + (exclusive ? (k - 1) : k) * step;
        const T* prev = os + (k - 1) * step;
        T* cur = os + k * step;
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) cur[i] = prev[i] + add[i];
      }
    }
  });
}

// x viewed as [outer, n, inner] around the scanned axis (a 0-d x is one row of 1).
struct AxisRows {
  int64_t outer, n, inner;
};

AxisRows axis_rows(const char* op, const Shape& shape, int64_t axis) {
  if (shape.rank() == 0) return {1, 1, 1};
  const int a = resolve_axis(op, axis, shape);
  return {dims_product(shape, 0, a), shape[a], dims_product(shape, a + 1, shape.rank())};
}

// Calls fn(offset) for the start of each outer block of n * inner elements, in parallel
// past the size threshold.
template <typename Fn>
void for_each_block(const AxisRows& v, Fn fn) {
  const int64_t block = v.n * v.inner;
  if (block == 0) return;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / block);
  parallel_for(v.outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) fn(o * block);
  });
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// log(exp(a) + exp(b)) without overflow; -inf for two -infs, NaN when either is NaN.
template <typename T>
T log_add_exp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  const T hi = a > b ? a : b, lo = a > b ? b : a;
  if (std::isinf(hi)) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

template <typename T>
void cumprod_block(const T* x, T* y, int64_t n, int64_t inner) {
  for (int64_t i = 0; i < inner; ++i) y[i] = x[i];
  for (int64_t k = 1; k < n; ++k) {
    const T* prev = y + (k - 1) * inner;
    const T* xs = x + k * inner;
    T* cur = y + k * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) cur[i] = prev[i] * xs[i];
  }
}

// With S[j] = g[j] + x[j+1] * S[j+1] (S[n-1] = g[n-1]), dx[j] = y[j-1] * S[j] (y[-1] = 1):
// dx holds S[j + 1] until S[j] has used it, then takes its prefix-product factor.
template <typename T>
void cumprod_grad_block(const T* x, const T* y, const T* g, T* dx, int64_t n, int64_t inner) {
  const int64_t last = (n - 1) * inner;
  for (int64_t i = 0; i < inner; ++i) dx[last + i] = g[last + i];
  for (int64_t j = n - 2; j >= 0; --j) {
    const T* gj = g + j * inner;
    const T* xn = x + (j + 1) * inner;
    const T* yj = y + j * inner;
    T* dj = dx + j * inner;
    T* dn = dx + (j + 1) * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) {
      dj[i] = gj[i] + xn[i] * dn[i];
      dn[i] *= yj[i];
    }
  }
}

template <typename T>
void logcumsumexp_block(const T* x, T* y, int64_t n, int64_t inner) {
  for (int64_t i = 0; i < inner; ++i) y[i] = x[i];
  for (int64_t k = 1; k < n; ++k) {
    const T* prev = y + (k - 1) * inner;
    const T* xs = x + k * inner;
    T* cur = y + k * inner;
    for (int64_t i = 0; i < inner; ++i) cur[i] = log_add_exp(prev[i], xs[i]);
  }
}

// One lane (stride `inner`) walked backwards: pos / neg = log of sum over i >= j of
// g[i]^+ / g[i]^- times exp(-y[i]); dx[j] = exp(x[j] + pos) - exp(x[j] + neg).
template <typename T>
void logcumsumexp_grad_lane(const T* x, const T* y, const T* g, T* dx, int64_t n, int64_t inner) {
  const T minus_inf = -std::numeric_limits<T>::infinity();
  T pos = minus_inf, neg = minus_inf;
  for (int64_t k = n - 1; k >= 0; --k) {
    const int64_t at = k * inner;
    if (g[at] > 0) pos = log_add_exp(pos, std::log(g[at]) - y[at]);
    if (g[at] < 0) neg = log_add_exp(neg, std::log(-g[at]) - y[at]);
    dx[at] = x[at] == minus_inf ? T(0) : std::exp(x[at] + pos) - std::exp(x[at] + neg);
  }
}

template <typename T>
void cum_extreme_block(const T* x, T* v, int64_t* idx, int64_t n, int64_t inner, bool largest) {
  for (int64_t i = 0; i < inner; ++i) {
    v[i] = x[i];
    idx[i] = 0;
  }
  for (int64_t k = 1; k < n; ++k) {
    const int64_t at = k * inner, before = at - inner;
    for (int64_t i = 0; i < inner; ++i) {
      const T c = x[at + i], best = v[before + i];
      const bool take = is_nan(c) || (!is_nan(best) && (largest ? c >= best : c <= best));
      v[at + i] = take ? c : best;
      idx[at + i] = take ? k : idx[before + i];
    }
  }
}

template <typename T>
void fill_range(double start, double end, double step, Tensor* out) {
  if constexpr (std::is_integral_v<T>) {
    const T s = fill_value_as<T>(start), e = fill_value_as<T>(end), d = fill_value_as<T>(step);
    const int64_t span = static_cast<int64_t>(e) - s;
    const int64_t n = d > 0 ? (span + d - 1) / d : (span + d + 1) / d;
    out->resize(Shape{std::max<int64_t>(n, 0)}, dtype_of<T>);
    T* p = out->data<T>();
    for (int64_t i = 0; i < out->numel(); ++i) p[i] = static_cast<T>(s + i * d);
  } else {
    out->resize(Shape{arange_length(start, end, step)}, dtype_of<T>);
    T* p = out->data<T>();
    for (int64_t i = 0; i < out->numel(); ++i) p[i] = static_cast<T>(start + i * step);
  }
}

}  // namespace

void cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse, Tensor* out) {
  const Tensor src = input_handle(x);
  const AxisRows v = axis_rows("cumsum", src.shape(), axis);
  out->resize(src.shape(), src.dtype());
  if (src.numel() == 0) return;
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    running_sums<T>(src.data<T>(), out->data<T>(), v.outer, v.n, v.inner, exclusive, reverse);
  });
}

void cumprod(const Tensor& x, int64_t axis, Tensor* out) {
  const Tensor src = input_handle(x);
  const AxisRows v = axis_rows("cumprod", src.shape(), axis);
  out->resize(src.shape(), src.dtype());
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const T* xs = src.data<T>();
    T* ys = out->data<T>();
    for_each_block(v, [&](int64_t at) { cumprod_block(xs + at, ys + at, v.n, v.inner); });
  });
}

void cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, int64_t axis,
                  Tensor* x_grad) {
  SKIFF_CHECK(out.shape() == x.shape() && out_grad.shape() == x.shape() &&
                  out.dtype() == x.dtype() && out_grad.dtype() == x.dtype(),
              "cumprod_grad: X ", x.type_str(), ", Out ", out.type_str(), " and Out@GRAD ",
              out_grad.type_str(), " must agree");
  const Tensor xs = input_handle(x), ys = input_handle(out), gs = input_handle(out_grad);
  const AxisRows v = axis_rows("cumprod_grad", xs.shape(), axis);
  x_grad->resize(xs.shape(), xs.dtype());
  SKIFF_DISPATCH_FLOATING(xs.dtype(), T, {
    T* dx = x_grad->data<T>();
    for_each_block(v, [&](int64_t at) {
      cumprod_grad_block(xs.data<T>() + at, ys.data<T>() + at, gs.data<T>() + at, dx + at, v.n,
                         v.inner);
    });
  });
}

void logcumsumexp(const Tensor& x, int64_t axis, Tensor* out) {
  const Tensor src = input_handle(x);
  SKIFF_CHECK(is_floating(src.dtype()), "logcumsumexp: X must be float32 or float64, got ",
              src.type_str());
  const AxisRows v = axis_rows("logcumsumexp", src.shape(), axis);
  out->resize(src.shape(), src.dtype());
  SKIFF_DISPATCH_FLOATING(src.dtype(), T, {
    const T* xs = src.data<T>();
    T* ys = out->data<T>();
    for_each_block(v, [&](int64_t at) { logcumsumexp_block(xs + at, ys + at, v.n, v.inner); });
  });
}

void logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, int64_t axis,
                       Tensor* x_grad) {
  SKIFF_CHECK(out.shape() == x.shape() && out_grad.shape() == x.shape() &&
                  out.dtype() == x.dtype() && out_grad.dtype() == x.dtype(),
              "logcumsumexp_grad: X ", x.type_str(), ", Out ", out.type_str(), " and Out@GRAD ",
              out_grad.type_str(), " must agree");
  const Tensor xs = input_handle(x), ys = input_handle(out), gs = input_handle(out_grad);
  const AxisRows v = axis_rows("logcumsumexp_grad", xs.shape(), axis);
  x_grad->resize(xs.shape(), xs.dtype());
  SKIFF_DISPATCH_FLOATING(xs.dtype(), T, {
    T* dx = x_grad->data<T>();
    for_each_block(v, [&](int64_t at) {
      for (int64_t i = 0; i < v.inner; ++i) {
        logcumsumexp_grad_lane(xs.data<T>() + at + i, ys.data<T>() + at + i, gs.data<T>() + at + i,
                               dx + at + i, v.n, v.inner);
      }
    });
  });
}

void cum_extreme(const Tensor& x, int64_t axis, bool largest, Tensor* values, Tensor* indices) {
  const Tensor src = input_handle(x);
  const AxisRows v = axis_rows(largest ? "cummax" : "cummin", src.shape(), axis);
  values->resize(src.shape(), src.dtype());
  indices->resize(src.shape(), DType::kI64);
  SKIFF_DISPATCH_NUMERIC(src.dtype(), T, {
    const T* xs = src.data<T>();
    T* vs = values->data<T>();
    int64_t* is = indices->data<int64_t>();
    for_each_block(v, [&](int64_t at) {
      cum_extreme_block(xs + at, vs + at, is + at, v.n, v.inner, largest);
    });
  });
}

int64_t arange_length(double start, double end, double step) {
  SKIFF_CHECK(std::isfinite(start) && std::isfinite(end) && std::isfinite(step) && step != 0,
              "arange: start ", start, ", end ", end, " and step ", step,
              " must be finite with a non-zero step");
  const double n = std::ceil((end - start) / step);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

void arange(double start, double end, double step, DType dtype, Tensor* out) {
  arange_length(start, end, step);  // checks the arguments
  SKIFF_DISPATCH_NUMERIC(dtype, T, fill_range<T>(start, end, step, out));
}

double arange_bound(const Tensor& t, const char* name) {
  SKIFF_CHECK(t.numel() == 1, "arange: ", name, " must hold one element, got ", t.type_str());
  return t.item<double>();
}

}  // namespace skiff::kernels
