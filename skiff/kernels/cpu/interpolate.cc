// Interpolation as a separable sum: each output cell is sum over taps of
// w_d[od][a] * w_h[oh][b] * w_w[ow][c] * x[id(od, a)][ih(oh, b)][iw(ow, c)], with 1 tap per
// axis for nearest, 2 for linear and 4 for cubic (missing axes of 1-D / 2-D resizes are
// one-cell axes). Source coordinates follow Paddle's interp_v2 kernels: the step is kept
// in float32 as Paddle keeps it (nearest also multiplies in float32), so that the chosen
// cells match Paddle's; the fractions are then taken in double.
#include "skiff/kernels/cpu/interpolate.h"

#include <algorithm>
#include <cmath>

#include "skiff/core/error.h"
#include "skiff/core/parallel.h"

namespace skiff::kernels {
namespace {

// The taps of one axis: out * taps source indices and weights.
struct AxisTaps {
  int64_t in = 1, out = 1;
  int taps = 1;
  std::vector<int64_t> index{0};
  std::vector<double> weight{1.0};
};

// Paddle's source step: (in - 1) / (out - 1) with aligned corners, else 1 / scale or
// in / out; 0 for a single output cell. Kept in float32 as Paddle keeps it.
float source_step(int64_t in, int64_t out, double scale, bool align_corners) {
  if (out <= 1) return 0.f;
  if (align_corners) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  if (scale > 0) return static_cast<float>(1.0 / static_cast<float>(scale));
  return static_cast<float>(in) / static_cast<float>(out);
}

// Keys's cubic convolution weights (a = -0.75) of the 4 cells around a point at
// fraction t past the second one.
void cubic_weights(double t, double* w) {
  constexpr double a = -0.75;
  auto near = [](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

AxisTaps axis_taps(int64_t in, int64_t out, double scale, const InterpOptions& o) {
  AxisTaps a;
  a.in = in;
  a.out = out;
  a.taps = o.method == InterpMethod::kNearest ? 1 : o.method == InterpMethod::kLinear ? 2 : 4;
  a.index.assign(out * a.taps, 0);
  a.weight.assign(out * a.taps, 0.0);
  const float step = source_step(in, out, scale, o.align_corners);
  auto clamp = [in](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
  for (int64_t k = 0; k < out; ++k) {
    // Paddle's sources: k * step multiplied in float32, half-pixel ones in double.
    const double scaled = step * static_cast<float>(k);
    const double centred = step * (k + 0.5) - 0.5;
    int64_t* idx = &a.index[k * a.taps];
    double* w = &a.weight[k * a.taps];
    if (o.method == InterpMethod::kNearest) {
      const float pos = step * static_cast<float>(k);
      idx[0] = clamp(o.align_corners ? static_cast<int64_t>(pos + 0.5) : static_cast<int64_t>(pos));
      w[0] = 1.0;
    } else if (o.method == InterpMethod::kLinear) {
      const bool half_pixel = o.align_mode == 0 && !o.align_corners;
      const double src = std::max(half_pixel ? centred : scaled, 0.0);
      const int64_t lo = std::min(static_cast<int64_t>(src), in - 1);
      const double frac = src - static_cast<double>(lo);
      idx[0] = lo;
      idx[1] = std::min(lo + 1, in - 1);
      w[0] = 1.0 - frac;
      w[1] = frac;
    } else {
      const double src = o.align_corners ? scaled : centred;
      const int64_t base = static_cast<int64_t>(std::floor(src));
      cubic_weights(src - static_cast<double>(base), w);
      for (int t = 0; t < 4; ++t) idx[t] = clamp(base - 1 + t);
    }
  }
  return a;
}

// The taps of the three axes (d, h, w) of one call.
struct ResizePlan {
  AxisTaps axis[3];
  int64_t planes = 0;
  int64_t in_numel() const { return axis[0].in * axis[1].in * axis[2].in; }
  int64_t out_numel() const { return axis[0].out * axis[1].out * axis[2].out; }
};

ResizePlan make_plan(const Shape& x, const Shape& out, const InterpOptions& o) {
  ResizePlan p;
  p.planes = x[0] * x[1];
  const int first = 3 - o.spatial_rank;
  for (int i = 0; i < o.spatial_rank; ++i) {
    p.axis[first + i] = axis_taps(x[2 + i], out[2 + i], o.scale[i], o);
  }
  return p;
}

// Calls fn(plane, od, oh, ow, id, ih, iw, weight) for every tap, planes split over threads.
template <typename Fn>
void for_each_tap(const ResizePlan& p, Fn&& fn) {
  const AxisTaps &d = p.axis[0], &h = p.axis[1], &w = p.axis[2];
  const int64_t work = p.out_numel() * d.taps * h.taps * w.taps;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(work, 1));
  parallel_for(p.planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      for (int64_t od = 0; od < d.out; ++od) {
        for (int64_t oh = 0; oh < h.out; ++oh) {
          for (int64_t ow = 0; ow < w.out; ++ow) {
            for (int a = 0; a < d.taps; ++a) {
              const double wd = d.weight[od * d.taps + a];
              const int64_t id = d.index[od * d.taps + a];
              for (int b = 0; b < h.taps; ++b) {
                const double wdh = wd * h.weight[oh * h.taps + b];
                const int64_t ih = h.index[oh * h.taps + b];
                for (int c = 0; c < w.taps; ++c) {
                  fn(plane, od, oh, ow, id, ih, w.index[ow * w.taps + c],
                     wdh * w.weight[ow * w.taps + c]);
                }
              }
            }
          }
        }
      }
    }
  });
}

template <typename T>
void resize(const ResizePlan& p, const T* x, T* y) {
  const int64_t in_numel = p.in_numel(), out_numel = p.out_numel();
  const int64_t ih_n = p.axis[1].in, iw_n = p.axis[2].in;
  const int64_t oh_n = p.axis[1].out, ow_n = p.axis[2].out;
  std::fill(y, y + p.planes * out_numel, T(0));
  for_each_tap(p, [&](int64_t plane, int64_t od, int64_t oh, int64_t ow, int64_t id, int64_t ih,
                      int64_t iw, double weight) {
    y[plane * out_numel + (od * oh_n + oh) * ow_n + ow] +=
        static_cast<T>(weight) * x[plane * in_numel + (id * ih_n + ih) * iw_n + iw];
  });
}

template <typename T>
void resize_adjoint(const ResizePlan& p, const T* dy, T* dx) {
  const int64_t in_numel = p.in_numel(), out_numel = p.out_numel();
  const int64_t ih_n = p.axis[1].in, iw_n = p.axis[2].in;
  const int64_t oh_n = p.axis[1].out, ow_n = p.axis[2].out;
  std::fill(dx, dx + p.planes * in_numel, T(0));
  for_each_tap(p, [&](int64_t plane, int64_t od, int64_t oh, int64_t ow, int64_t id, int64_t ih,
                      int64_t iw, double weight) {
    dx[plane * in_numel + (id * ih_n + ih) * iw_n + iw] +=
        static_cast<T>(weight) * dy[plane * out_numel + (od * oh_n + oh) * ow_n + ow];
  });
}

// The values of a small numeric tensor as doubles.
std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(t.numel());
  SKIFF_DISPATCH_NUMERIC(t.dtype(), T, {
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

void check_rank(const Shape& x, const InterpOptions& o) {
  SKIFF_CHECK(x.rank() == o.spatial_rank + 2, "interpolate: X must be ", o.spatial_rank + 2,
              "-D (N, C and ", o.spatial_rank, " spatial dims) for this mode, got ", x);
}

}  // namespace

InterpOptions interp_options(const std::string& method, int spatial_rank,
                             const std::vector<int64_t>& out_dhw, const std::vector<double>& scale,
                             bool align_corners, int align_mode) {
  InterpOptions o;
  int want_rank = 0;  // 0: any of 1, 2, 3
  if (method == "nearest") {
    o.method = InterpMethod::kNearest;
  } else if (method == "linear" || method == "bilinear" || method == "trilinear") {
    o.method = InterpMethod::kLinear;
    want_rank = method == "linear" ? 1 : method == "bilinear" ? 2 : 3;
  } else if (method == "bicubic") {
    o.method = InterpMethod::kCubic;
    want_rank = 2;
  } else {
    fail("interpolate: unknown method \"", method,
         "\" (nearest, linear, bilinear, trilinear or bicubic)");
  }
  SKIFF_CHECK(spatial_rank >= 1 && spatial_rank <= 3 && (!want_rank || want_rank == spatial_rank),
              "interpolate: ", method, " resizes ", want_rank ? std::to_string(want_rank) : "1-3",
              " spatial dims, got an input with ", spatial_rank);
  SKIFF_CHECK(out_dhw.size() == 3, "interpolate: expected (out_d, out_h, out_w), got ",
              out_dhw.size(), " sizes");
  SKIFF_CHECK(align_mode == 0 || align_mode == 1, "interpolate: align_mode must be 0 or 1, got ",
              align_mode);
  SKIFF_CHECK(scale.empty() || scale.size() == 1 || static_cast<int>(scale.size()) == spatial_rank,
              "interpolate: scale must hold 1 or ", spatial_rank, " values, got ", scale.size());
  o.spatial_rank = spatial_rank;
  o.align_corners = align_corners;
  o.align_mode = align_mode;
  for (int i = 0; i < spatial_rank; ++i) {
    o.out_size[i] = out_dhw[3 - spatial_rank + i];
    if (!scale.empty()) o.scale[i] = scale.size() == 1 ? scale[0] : scale[i];
  }
  return o;
}

InterpOptions with_size_inputs(InterpOptions o, const Tensor* out_size, const Tensor* scale) {
  const int r = o.spatial_rank;
  if (scale) {
    const std::vector<double> s = values_of(*scale);
    SKIFF_CHECK(s.size() == 1 || static_cast<int>(s.size()) == r,
                "interpolate: Scale must hold 1 or ", r, " values, got ", s.size());
    for (int i = 0; i < r; ++i) o.scale[i] = s.size() == 1 ? s[0] : s[i];
  }
  if (out_size) {
    const std::vector<double> s = values_of(*out_size);
    SKIFF_CHECK(static_cast<int>(s.size()) == r, "interpolate: OutSize must hold ", r,
                " sizes, got ", s.size());
    for (int i = 0; i < r; ++i) {
      SKIFF_CHECK(s[i] > 0, "interpolate: OutSize must be positive, got ", s[i]);
      o.out_size[i] = static_cast<int64_t>(s[i]);
    }
  }
  return o;
}

Shape interp_output_shape(const Shape& x, const InterpOptions& o) {
  check_rank(x, o);
  Shape out = x;
  for (int i = 0; i < o.spatial_rank; ++i) {
    const int64_t in = x[2 + i];
    if (o.out_size[i] > 0) {
      out[2 + i] = o.out_size[i];
      continue;
    }
    SKIFF_CHECK(o.scale[i] > 0, "interpolate: spatial axis ", i,
                " has neither a positive output size nor a positive scale (input ", x, ")");
    if (in < 0) {
      out[2 + i] = -1;
      continue;
    }
    out[2 + i] = static_cast<int64_t>(static_cast<float>(in) * static_cast<float>(o.scale[i]));
    SKIFF_CHECK(out[2 + i] > 0, "interpolate: scale ", o.scale[i], " makes spatial axis ", i,
                " of input ", x, " empty");
  }
  return out;
}

void interpolate(const Tensor& x, const InterpOptions& o, Tensor* out) {
  const Shape out_shape = interp_output_shape(x.shape(), o);
  for (int i = 2; i < x.rank(); ++i) {
    SKIFF_CHECK(x.dim(i) > 0, "interpolate: the spatial dims of X must be positive, got ",
                x.shape());
  }
  const ResizePlan plan = make_plan(x.shape(), out_shape, o);
  Tensor result = Tensor::empty(out_shape, x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, resize(plan, x.data<T>(), result.data<T>()));
  *out = std::move(result);
}

void interpolate_grad(const Shape& x_shape, const Tensor& out_grad, const InterpOptions& o,
                      Tensor* x_grad) {
  check_rank(x_shape, o);
  check_rank(out_grad.shape(), o);
  SKIFF_CHECK(out_grad.dim(0) == x_shape[0] && out_grad.dim(1) == x_shape[1],
              "interpolate_grad: Out@GRAD ", out_grad.shape(), " does not match X ", x_shape);
  const ResizePlan plan = make_plan(x_shape, out_grad.shape(), o);
  Tensor result = Tensor::empty(x_shape, out_grad.dtype());
  SKIFF_DISPATCH_FLOATING(out_grad.dtype(), T,
                          resize_adjoint(plan, out_grad.data<T>(), result.data<T>()));
  *x_grad = std::move(result);
}

}  // namespace skiff::kernels
