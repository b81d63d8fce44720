// layer_norm and layer_norm_grad of norm.h: row by row over X seen as [left, right].
#include <algorithm>
#include <cmath>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/norm.h"

namespace skiff::kernels {
namespace {

// X as [rows, cols] split at begin_norm_axis.
struct RowLayout {
  int64_t rows = 1, cols = 1;
  RowLayout(const Shape& x, int64_t axis) {
    for (int d = 0; d < x.rank(); ++d) (d < axis ? rows : cols) *= x[d];
  }
  int64_t row_grain() const {
    return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cols, 1));
  }
};

template <typename T>
void normalize_rows(const RowLayout& l, const T* x, const T* scale, const T* bias, double epsilon,
                    T* y, T* mean, T* var) {
  const int64_t n = l.cols;
  parallel_for(l.rows, l.row_grain(), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * n;
      double sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t k = 0; k < n; ++k) sum += xr[k];
      const double m = n > 0 ? sum / static_cast<double>(n) : 0.0;
#pragma omp simd reduction(+ : sq)
      for (int64_t k = 0; k < n; ++k) sq += (xr[k] - m) * (xr[k] - m);
      const double v = n > 0 ? sq / static_cast<double>(n) : 0.0;
      mean[r] = static_cast<T>(m);
      var[r] = static_cast<T>(v);
      const T mt = static_cast<T>(m), inv = static_cast<T>(1.0 / std::sqrt(v + epsilon));
      T* yr = y + r * n;
      if (scale && bias) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mt) * inv * scale[k] + bias[k];
        continue;
      }
#pragma omp simd
      for (int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mt) * inv;
      if (scale) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) yr[k] *= scale[k];
      }
      if (bias) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k) yr[k] += bias[k];
      }
    }
  });
}

// scale_grad[j] = sum over rows of dy * x_hat, bias_grad[j] = sum of dy (either may be
// null); split across threads by columns.
template <typename T>
void param_grads(const RowLayout& l, const T* x, const T* dy, const T* mean, const T* var,
                 double epsilon, T* scale_grad, T* bias_grad) {
  const int64_t n = l.cols;
  parallel_for(n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(l.rows, 1)),
               [&](int64_t j0, int64_t j1) {
                 if (scale_grad) std::fill(scale_grad + j0, scale_grad + j1, T(0));
                 if (bias_grad) std::fill(bias_grad + j0, bias_grad + j1, T(0));
                 for (int64_t r = 0; r < l.rows; ++r) {
                   const T* xr = x + r * n;
                   const T* gr = dy + r * n;
                   if (scale_grad) {
                     const T m = mean[r];
                     const T inv = static_cast<T>(1.0 / std::sqrt(var[r] + epsilon));
#pragma omp simd
                     for (int64_t j = j0; j < j1; ++j) scale_grad[j] += gr[j] * (xr[j] - m) * inv;
                   }
                   if (bias_grad) {
#pragma omp simd
                     for (int64_t j = j0; j < j1; ++j) bias_grad[j] += gr[j];
                   }
                 }
               });
}

// dx = inv * (g - mean(g) - x_hat * mean(g * x_hat)) per row, g = dy * scale.
template <typename T>
void input_grad(const RowLayout& l, const T* x, const T* dy, const T* scale, const T* mean,
                const T* var, double epsilon, T* dx) {
  const int64_t n = l.cols;
  parallel_for(l.rows, l.row_grain(), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * n;
      const T* gr = dy + r * n;
      T* dr = dx + r * n;
      const T m = mean[r];
      const T inv = static_cast<T>(1.0 / std::sqrt(var[r] + epsilon));
      double sum_g = 0, sum_gx = 0;
      if (scale) {
#pragma omp simd reduction(+ : sum_g, sum_gx)
        for (int64_t k = 0; k < n; ++k) {
          const T g = gr[k] * scale[k];
          sum_g += g;
          sum_gx += g * (xr[k] - m) * inv;
        }
      } else {
#pragma omp simd reduction(+ : sum_g, sum_gx)
        for (int64_t k = 0; k < n; ++k) {
          sum_g += gr[k];
          sum_gx += gr[k] * (xr[k] - m) * inv;
        }
      }
      const T mean_g = static_cast<T>(sum_g / static_cast<double>(n));
      const T mean_gx = static_cast<T>(sum_gx / static_cast<double>(n));
      if (scale) {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k)
          dr[k] = inv * (gr[k] * scale[k] - mean_g - (xr[k] - m) * inv * mean_gx);
      } else {
#pragma omp simd
        for (int64_t k = 0; k < n; ++k)
          dr[k] = inv * (gr[k] - mean_g - (xr[k] - m) * inv * mean_gx);
      }
    }
  });
}

void check_param(const char* op, const char* what, const Tensor* p, const Tensor& x, int64_t axis) {
  if (!p) return;
  SKIFF_CHECK(p->dtype() == x.dtype(), op, ": ", what, " ", p->type_str(), " must be ",
              dtype_name(x.dtype()), " like X ", x.shape());
  check_layer_norm_param(what, p->shape(), x.shape(), axis);
}

}  // namespace

Shape layer_norm_stats_shape(const Shape& x, int64_t begin_norm_axis) {
  SKIFF_CHECK(begin_norm_axis >= 0 && begin_norm_axis < std::max(x.rank(), 1),
              "layer_norm: begin_norm_axis ", begin_norm_axis, " is out of range for X ", x,
              " (valid: [0, ", std::max(x.rank(), 1) - 1, "])");
  int64_t left = 1;
  for (int d = 0; d < begin_norm_axis; ++d) left = (left < 0 || x[d] < 0) ? -1 : left * x[d];
  return Shape{left};
}

void check_layer_norm_param(const char* what, const Shape& param, const Shape& x,
                            int64_t begin_norm_axis) {
  int64_t right = 1;
  for (int d = static_cast<int>(begin_norm_axis); d < x.rank(); ++d)
    right = (right < 0 || x[d] < 0) ? -1 : right * x[d];
  SKIFF_CHECK(param.rank() == 1 && (right < 0 || param[0] < 0 || param[0] == right),
              "layer_norm: ", what, " ", param, " should be [", right, "], the size of X ", x,
              " from begin_norm_axis ", begin_norm_axis, " on");
}

void layer_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, int64_t begin_norm_axis,
                double epsilon, Tensor* y, Tensor* mean, Tensor* variance) {
  SKIFF_CHECK(is_floating(x.dtype()), "layer_norm: X must be float32 or float64, got ",
              x.type_str());
  const Shape stats = layer_norm_stats_shape(x.shape(), begin_norm_axis);
  check_param("layer_norm", "Scale", scale, x, begin_norm_axis);
  check_param("layer_norm", "Bias", bias, x, begin_norm_axis);
  SKIFF_CHECK(epsilon >= 0, "layer_norm: epsilon must be >= 0, got ", epsilon);
  const RowLayout l(x.shape(), begin_norm_axis);
  // Row statistics go to scratch when their outputs are not wanted.
  Tensor own_mean, own_var;
  Tensor* m = mean ? mean : &own_mean;
  Tensor* v = variance ? variance : &own_var;
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xd = x.data<T>();
    m->resize(stats, x.dtype());
    v->resize(stats, x.dtype());
    y->resize(x.shape(), x.dtype());  // row by row: y may be x
    normalize_rows<T>(l, xd, scale ? scale->data<T>() : nullptr, bias ? bias->data<T>() : nullptr,
                      epsilon, y->data<T>(), m->data<T>(), v->data<T>());
  });
}

void layer_norm_grad(const Tensor& x, const Tensor* scale, const Tensor& mean,
                     const Tensor& variance, const Tensor& y_grad, int64_t begin_norm_axis,
                     double epsilon, Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad) {
  SKIFF_CHECK(is_floating(x.dtype()) && y_grad.dtype() == x.dtype() && y_grad.shape() == x.shape(),
              "layer_norm_grad: Y@GRAD ", y_grad.type_str(), " must match X ", x.type_str());
  const Shape stats = layer_norm_stats_shape(x.shape(), begin_norm_axis);
  for (const Tensor* t : {&mean, &variance}) {
    SKIFF_CHECK(t->dtype() == x.dtype() && t->shape() == stats, "layer_norm_grad: Mean and ",
                "Variance should be ", dtype_name(x.dtype()), stats, ", got ", t->type_str());
  }
  check_param("layer_norm_grad", "Scale", scale, x, begin_norm_axis);
  const RowLayout l(x.shape(), begin_norm_axis);
  const Shape param{l.cols};
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xd = x.data<T>();
    const T* gd = y_grad.data<T>();
    const T* md = mean.data<T>();
    const T* vd = variance.data<T>();
    // Parameter gradients first: x_grad may overwrite x or y_grad.
    if (scale_grad) scale_grad->resize(param, x.dtype());
    if (bias_grad) bias_grad->resize(param, x.dtype());
    if (scale_grad || bias_grad) {
      param_grads<T>(l, xd, gd, md, vd, epsilon, scale_grad ? scale_grad->data<T>() : nullptr,
                     bias_grad ? bias_grad->data<T>() : nullptr);
    }
    if (x_grad) {
      const T* sd = scale ? scale->data<T>() : nullptr;
      x_grad->resize(x.shape(), x.dtype());
      input_grad<T>(l, xd, gd, sd, md, vd, epsilon, x_grad->data<T>());
    }
  });
}

}  // namespace skiff::kernels
