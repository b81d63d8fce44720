// batch_norm and batch_norm_grad of norm.h: direct loops over the channels' planes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/norm.h"

namespace skiff::kernels {
namespace {

// X as [n, c, s], s the product of the spatial dims (1 for [N, C]).
struct ChannelLayout {
  int64_t n = 1, c = 1, s = 1;
  explicit ChannelLayout(const Shape& x) : n(x[0]), c(x[1]) {
    for (int d = 2; d < x.rank(); ++d) s *= x[d];
  }
  int64_t count() const { return n * s; }  // elements per channel
  // Channels per thread chunk so that a chunk holds about kParallelGrain elements.
  int64_t channel_grain() const {
    return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(count(), 1));
  }
};

// Per-channel values: inline for usual channel counts, on the heap beyond.
template <typename V>
class ChannelValues {
 public:
  explicit ChannelValues(int64_t c) {
    if (c > kInline) heap_.resize(c);
    data_ = c > kInline ? heap_.data() : inline_;
  }
  ChannelValues(const ChannelValues&) = delete;
  ChannelValues& operator=(const ChannelValues&) = delete;
  V& operator[](int64_t i) { return data_[i]; }
  V* data() { return data_; }

 private:
  static constexpr int64_t kInline = 256;
  V inline_[kInline];
  std::vector<V> heap_;
  V* data_;
};

// mean[ch] and biased var[ch] over n and s. Planes are summed twice while in cache and
// merged with Chan's update, so X is streamed once and large means cost no precision.
template <typename T>
void channel_moments(const ChannelLayout& l, const T* x, double* mean, double* var) {
  if (l.s == 1) {
    std::fill(mean, mean + l.c, 0.0);
    std::fill(var, var + l.c, 0.0);
    for (int64_t i = 0; i < l.n; ++i) {
      const T* row = x + i * l.c;
#pragma omp simd
      for (int64_t j = 0; j < l.c; ++j) mean[j] += row[j];
    }
    for (int64_t j = 0; j < l.c; ++j) mean[j] /= static_cast<double>(l.n);
    for (int64_t i = 0; i < l.n; ++i) {
      const T* row = x + i * l.c;
#pragma omp simd
      for (int64_t j = 0; j < l.c; ++j) var[j] += (row[j] - mean[j]) * (row[j] - mean[j]);
    }
    for (int64_t j = 0; j < l.c; ++j) var[j] /= static_cast<double>(l.n);
    return;
  }
  parallel_for(l.c, l.channel_grain(), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      double m = 0, m2 = 0, seen = 0;
      const double s = static_cast<double>(l.s);
      for (int64_t i = 0; i < l.n; ++i) {
        const T* p = x + (i * l.c + ch) * l.s;
        double sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t k = 0; k < l.s; ++k) sum += p[k];
        const double pm = sum / s;
#pragma omp simd reduction(+ : sq)
        for (int64_t k = 0; k < l.s; ++k) sq += (p[k] - pm) * (p[k] - pm);
        const double total = seen + s, delta = pm - m;
        m += delta * s / total;
        m2 += sq + delta * delta * seen * s / total;
        seen = total;
      }
      mean[ch] = m;
      var[ch] = m2 / seen;
    }
  });
}

// y = x * a[ch] + b[ch].
template <typename T>
void channel_affine(const ChannelLayout& l, const T* x, const T* a, const T* b, T* y) {
  if (l.s == 1) {
    parallel_for(l.n, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(l.c, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t i = r0; i < r1; ++i) {
#pragma omp simd
                     for (int64_t j = 0; j < l.c; ++j)
                       y[i * l.c + j] = x[i * l.c + j] * a[j] + b[j];
                   }
                 });
    return;
  }
  parallel_for(l.n * l.c, std::max<int64_t>(1, kParallelGrain / l.s), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T av = a[p % l.c], bv = b[p % l.c];
      const T* xp = x + p * l.s;
      T* yp = y + p * l.s;
#pragma omp simd
      for (int64_t k = 0; k < l.s; ++k) yp[k] = xp[k] * av + bv;
    }
  });
}

// sum_dy[ch] = sum of dy, sum_dy_xmu[ch] = sum of dy * (x - mean[ch]).
template <typename T>
void channel_grad_sums(const ChannelLayout& l, const T* x, const T* dy, const T* mean,
                       double* sum_dy, double* sum_dy_xmu) {
  if (l.s == 1) {
    std::fill(sum_dy, sum_dy + l.c, 0.0);
    std::fill(sum_dy_xmu, sum_dy_xmu + l.c, 0.0);
    for (int64_t i = 0; i < l.n; ++i) {
      const T* xr = x + i * l.c;
      const T* gr = dy + i * l.c;
#pragma omp simd
      for (int64_t j = 0; j < l.c; ++j) {
        sum_dy[j] += gr[j];
        sum_dy_xmu[j] += static_cast<double>(gr[j]) * (xr[j] - mean[j]);
      }
    }
    return;
  }
  parallel_for(l.c, l.channel_grain(), [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      double a = 0, b = 0;
      const T mu = mean[ch];
      for (int64_t i = 0; i < l.n; ++i) {
        const T* xp = x + (i * l.c + ch) * l.s;
        const T* gp = dy + (i * l.c + ch) * l.s;
#pragma omp simd reduction(+ : a, b)
        for (int64_t k = 0; k < l.s; ++k) {
          a += gp[k];
          b += static_cast<double>(gp[k]) * (xp[k] - mu);
        }
      }
      sum_dy[ch] = a;
      sum_dy_xmu[ch] = b;
    }
  });
}

// dx = p[ch] * dy + q[ch] * x + r[ch].
template <typename T>
void channel_grad_affine(const ChannelLayout& l, const T* x, const T* dy, const T* p, const T* q,
                         const T* r, T* dx) {
  if (l.s == 1) {
    for (int64_t i = 0; i < l.n; ++i) {
      const int64_t at = i * l.c;
#pragma omp simd
      for (int64_t j = 0; j < l.c; ++j) dx[at + j] = p[j] * dy[at + j] + q[j] * x[at + j] + r[j];
    }
    return;
  }
  parallel_for(l.n * l.c, std::max<int64_t>(1, kParallelGrain / l.s), [&](int64_t p0, int64_t p1) {
    for (int64_t plane = p0; plane < p1; ++plane) {
      const int64_t ch = plane % l.c, at = plane * l.s;
      const T pv = p[ch], qv = q[ch], rv = r[ch];
#pragma omp simd
      for (int64_t k = 0; k < l.s; ++k) dx[at + k] = pv * dy[at + k] + qv * x[at + k] + rv;
    }
  });
}

// out (resized to [C]) = values.
template <typename T>
void write_channels(Tensor* out, int64_t c, const double* values) {
  out->resize(Shape{c}, dtype_of<T>);
  T* o = out->data<T>();
  for (int64_t j = 0; j < c; ++j) o[j] = static_cast<T>(values[j]);
}

template <typename T>
void batch_norm_typed(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                      const Tensor& variance, const BatchNormOptions& o, Tensor* y,
                      Tensor* mean_out, Tensor* variance_out, Tensor* saved_mean,
                      Tensor* saved_inv_std) {
  const ChannelLayout l(x.shape());
  ChannelValues<double> m(l.c), v(l.c), inv(l.c);
  if (o.use_running_stats) {
    for (int64_t j = 0; j < l.c; ++j) {
      m[j] = mean.data<T>()[j];
      v[j] = variance.data<T>()[j];
    }
  } else {
    channel_moments(l, x.data<T>(), m.data(), v.data());
  }
  for (int64_t j = 0; j < l.c; ++j) inv[j] = 1.0 / std::sqrt(v[j] + o.epsilon);

  ChannelValues<T> a(l.c), b(l.c);
  for (int64_t j = 0; j < l.c; ++j) {
    a[j] = static_cast<T>(scale.data<T>()[j] * inv[j]);
    b[j] = static_cast<T>(bias.data<T>()[j] - m[j] * scale.data<T>()[j] * inv[j]);
  }
  const T* xd = x.data<T>();
  y->resize(x.shape(), x.dtype());  // element by element: y may be x
  channel_affine(l, xd, a.data(), b.data(), y->data<T>());

  // Running statistics: read before written (the outputs are usually the inputs).
  const std::pair<const Tensor*, Tensor*> running[] = {{&mean, mean_out},
                                                       {&variance, variance_out}};
  for (int k = 0; k < 2; ++k) {
    const auto [in, out] = running[k];
    if (!out) continue;
    if (o.use_running_stats) {
      if (out != in) *out = *in;
      continue;
    }
    const double* batch = k == 0 ? m.data() : v.data();
    const T* old = in->data<T>();
    out->resize(in->shape(), in->dtype());
    T* upd = out->data<T>();
    for (int64_t j = 0; j < l.c; ++j) {
      upd[j] = static_cast<T>(old[j] * o.momentum + batch[j] * (1.0 - o.momentum));
    }
  }
  if (saved_mean) write_channels<T>(saved_mean, l.c, m.data());
  if (saved_inv_std) write_channels<T>(saved_inv_std, l.c, inv.data());
}

template <typename T>
void batch_norm_grad_typed(const Tensor& x, const Tensor& scale, const Tensor& saved_mean,
                           const Tensor& saved_inv_std, const Tensor& y_grad,
                           bool use_running_stats, Tensor* x_grad, Tensor* scale_grad,
                           Tensor* bias_grad) {
  const ChannelLayout l(x.shape());
  ChannelValues<double> sum_dy(l.c), sum_dy_xmu(l.c);
  const T* mean = saved_mean.data<T>();
  const T* inv = saved_inv_std.data<T>();
  if (scale_grad || bias_grad || !use_running_stats) {
    channel_grad_sums(l, x.data<T>(), y_grad.data<T>(), mean, sum_dy.data(), sum_dy_xmu.data());
  }
  ChannelValues<T> p(l.c), q(l.c), r(l.c);
  const double count = static_cast<double>(l.count());
  for (int64_t j = 0; j < l.c; ++j) {
    const double pj = static_cast<double>(scale.data<T>()[j]) * inv[j];
    const double qj = use_running_stats ? 0.0 : -pj * inv[j] * inv[j] * sum_dy_xmu[j] / count;
    p[j] = static_cast<T>(pj);
    q[j] = static_cast<T>(qj);
    r[j] = static_cast<T>(use_running_stats ? 0.0 : -pj * sum_dy[j] / count - qj * mean[j]);
  }
  // The parameter gradients first: x_grad may overwrite x or y_grad.
  if (bias_grad) write_channels<T>(bias_grad, l.c, sum_dy.data());
  if (scale_grad) {
    for (int64_t j = 0; j < l.c; ++j) sum_dy_xmu[j] *= inv[j];
    write_channels<T>(scale_grad, l.c, sum_dy_xmu.data());
  }
  if (x_grad) {
    const T* xd = x.data<T>();
    const T* gd = y_grad.data<T>();
    x_grad->resize(x.shape(), x.dtype());
    channel_grad_affine(l, xd, gd, p.data(), q.data(), r.data(), x_grad->data<T>());
  }
}

void check_same_dtype(const char* op, const Tensor& x,
                      std::initializer_list<const Tensor*> others) {
  SKIFF_CHECK(is_floating(x.dtype()), op, ": X must be float32 or float64, got ", x.type_str());
  for (const Tensor* t : others) {
    SKIFF_CHECK(t->dtype() == x.dtype(), op, ": every input must be ", dtype_name(x.dtype()),
                " like X ", x.shape(), ", got ", t->type_str());
  }
}

}  // namespace

void check_batch_norm_shapes(const Shape& x, const Shape& scale, const Shape& bias,
                             const Shape& mean, const Shape& variance) {
  SKIFF_CHECK(x.rank() >= 2 && x.rank() <= 5, "batch_norm: X must be [N, C] or [N, C, ...] ",
              "with at most 3 spatial dims, got ", x);
  const int64_t c = x[1];
  const std::pair<const char*, const Shape*> params[] = {
      {"Scale", &scale}, {"Bias", &bias}, {"Mean", &mean}, {"Variance", &variance}};
  for (const auto& [name, shape] : params) {
    SKIFF_CHECK(shape->rank() == 1 && (c < 0 || (*shape)[0] < 0 || (*shape)[0] == c),
                "batch_norm: ", name, " ", *shape, " should be [C] = [", c, "] for X ", x);
  }
}

void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                const Tensor& variance, const BatchNormOptions& o, Tensor* y, Tensor* mean_out,
                Tensor* variance_out, Tensor* saved_mean, Tensor* saved_inv_std) {
  check_same_dtype("batch_norm", x, {&scale, &bias, &mean, &variance});
  check_batch_norm_shapes(x.shape(), scale.shape(), bias.shape(), mean.shape(), variance.shape());
  SKIFF_CHECK(o.epsilon >= 0, "batch_norm: epsilon must be >= 0, got ", o.epsilon);
  SKIFF_CHECK(o.use_running_stats || ChannelLayout(x.shape()).count() > 0, "batch_norm: X ",
              x.shape(), " has no elements per channel to take batch statistics over");
  SKIFF_DISPATCH_FLOATING(x.dtype(), T,
                          batch_norm_typed<T>(x, scale, bias, mean, variance, o, y, mean_out,
                                              variance_out, saved_mean, saved_inv_std));
}

void batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor& saved_mean,
                     const Tensor& saved_inv_std, const Tensor& y_grad, bool use_running_stats,
                     Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad) {
  check_same_dtype("batch_norm_grad", x, {&scale, &saved_mean, &saved_inv_std, &y_grad});
  check_batch_norm_shapes(x.shape(), scale.shape(), scale.shape(), saved_mean.shape(),
                          saved_inv_std.shape());
  SKIFF_CHECK(y_grad.shape() == x.shape(), "batch_norm_grad: Y@GRAD ", y_grad.shape(),
              " should be X's shape ", x.shape());
  SKIFF_DISPATCH_FLOATING(
      x.dtype(), T,
      batch_norm_grad_typed<T>(x, scale, saved_mean, saved_inv_std, y_grad, use_running_stats,
                               x_grad, scale_grad, bias_grad));
}

}  // namespace skiff::kernels
