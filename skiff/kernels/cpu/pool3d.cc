// pool3d: options and shapes, and direct loops over each (n, c) volume, parallel across
// volumes. The per-axis window rules are pool2d's (pool_geometry.h).
#include "skiff/kernels/cpu/pool3d.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/pool_geometry.h"

namespace skiff::kernels {
namespace {

// One axis of the windows of a call on a known input shape.
struct Axis {
  int64_t in = 0, out = 0, k = 1, s = 1, pad_begin = 0, pad_end = 0;
  bool adaptive = false;
  void window(int64_t i, int64_t* b, int64_t* e) const {
    pool_window(i, in, out, k, s, pad_begin, adaptive, b, e);
  }
  int64_t padded_window(int64_t i) const {
    return pool_padded_window(i, in, k, s, pad_begin, pad_end);
  }
};

struct VolumeGeometry {
  int64_t volumes = 0;
  Axis axis[3];  // D, H, W
  bool max = true, exclusive = true, adaptive = false;
  int64_t in_cells() const { return axis[0].in * axis[1].in * axis[2].in; }
  int64_t out_cells() const { return axis[0].out * axis[1].out * axis[2].out; }
};

VolumeGeometry geometry(const Shape& x, const Pool3dOptions& o) {
  const Shape out = pool3d_output_shape(x, o);
  VolumeGeometry g;
  g.volumes = x[0] * x[1];
  g.max = o.max;
  g.exclusive = o.exclusive;
  g.adaptive = o.adaptive && !o.global_pooling;
  for (int d = 0; d < 3; ++d) {
    Axis& a = g.axis[d];
    a.in = x[2 + d];
    a.out = out[2 + d];
    a.adaptive = g.adaptive;
    if (o.global_pooling) {
      a.k = a.s = a.in;
    } else if (!o.adaptive) {
      a.k = o.ksize[d];
      a.s = o.strides[d];
      a.pad_begin = o.paddings[2 * d];
      a.pad_end = o.paddings[2 * d + 1];
    }
  }
  SKIFF_CHECK(g.in_cells() <= std::numeric_limits<int32_t>::max(), "pool3d: X ", x,
              " has volumes too large for int32 argmax indices");
  return g;
}

// Calls fn(out_index, d0, d1, h0, h1, w0, w1) for every output cell of one volume.
template <typename Fn>
void for_each_window(const VolumeGeometry& g, Fn&& fn) {
  const Axis &ad = g.axis[0], &ah = g.axis[1], &aw = g.axis[2];
  int64_t o = 0;
  for (int64_t i = 0; i < ad.out; ++i) {
    int64_t d0, d1;
    ad.window(i, &d0, &d1);
    for (int64_t j = 0; j < ah.out; ++j) {
      int64_t h0, h1;
      ah.window(j, &h0, &h1);
      for (int64_t k = 0; k < aw.out; ++k, ++o) {
        int64_t w0, w1;
        aw.window(k, &w0, &w1);
        fn(o, i, j, k, d0, d1, h0, h1, w0, w1);
      }
    }
  }
}

// The first maximum of x over a window, as an index into its volume.
template <typename T>
int64_t window_argmax(const VolumeGeometry& g, const T* x, int64_t d0, int64_t d1, int64_t h0,
                      int64_t h1, int64_t w0, int64_t w1) {
  const int64_t hh = g.axis[1].in, ww = g.axis[2].in;
  int64_t arg = (d0 * hh + h0) * ww + w0;
  for (int64_t d = d0; d < d1; ++d)
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        const int64_t at = (d * hh + h) * ww + w;
        if (x[at] > x[arg]) arg = at;
      }
  return arg;
}

// What output (i, j, k)'s average divides by: its `cells`, or counting padding.
int64_t divisor(const VolumeGeometry& g, int64_t i, int64_t j, int64_t k, int64_t cells) {
  if (g.exclusive || g.adaptive) return cells;
  return g.axis[0].padded_window(i) * g.axis[1].padded_window(j) * g.axis[2].padded_window(k);
}

template <typename T>
void pool_volume(const VolumeGeometry& g, const T* x, T* y, int32_t* mask) {
  const int64_t hh = g.axis[1].in, ww = g.axis[2].in;
  for_each_window(g, [&](int64_t o, int64_t i, int64_t j, int64_t k, int64_t d0, int64_t d1,
                         int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    if (g.max) {
      const int64_t arg = window_argmax(g, x, d0, d1, h0, h1, w0, w1);
      y[o] = x[arg];
      if (mask) mask[o] = static_cast<int32_t>(arg);
      return;
    }
    T sum = T(0);
    for (int64_t d = d0; d < d1; ++d)
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) sum += x[(d * hh + h) * ww + w];
    y[o] = sum / static_cast<T>(divisor(g, i, j, k, (d1 - d0) * (h1 - h0) * (w1 - w0)));
  });
}

// dx (overwritten) of one volume; false when a mask index lies outside the volume.
template <typename T>
bool pool_volume_grad(const VolumeGeometry& g, const T* x, const T* dy, const int32_t* mask,
                      T* dx) {
  const int64_t hh = g.axis[1].in, ww = g.axis[2].in, cells = g.in_cells();
  std::fill(dx, dx + cells, T(0));
  bool ok = true;
  for_each_window(g, [&](int64_t o, int64_t i, int64_t j, int64_t k, int64_t d0, int64_t d1,
                         int64_t h0, int64_t h1, int64_t w0, int64_t w1) {
    if (g.max) {
      const int64_t arg = mask ? mask[o] : window_argmax(g, x, d0, d1, h0, h1, w0, w1);
      if (arg < 0 || arg >= cells) {
        ok = false;
        return;
      }
      dx[arg] += dy[o];
      return;
    }
    const T share = dy[o] / static_cast<T>(divisor(g, i, j, k, (d1 - d0) * (h1 - h0) * (w1 - w0)));
    for (int64_t d = d0; d < d1; ++d)
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) dx[(d * hh + h) * ww + w] += share;
  });
  return ok;
}

// Work per volume, in cells touched: enough volumes run in parallel past the threshold.
int64_t grain(const VolumeGeometry& g) {
  constexpr int64_t kCellsPerTask = 1 << 15;
  return std::max<int64_t>(1, kCellsPerTask / std::max<int64_t>(1, g.in_cells()));
}

}  // namespace

Pool3dOptions pool3d_options(const std::string& pooling_type, const std::vector<int64_t>& ksize,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings, bool global_pooling,
                             bool adaptive, bool exclusive, bool ceil_mode) {
  auto positive = [](const std::vector<int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
  };
  SKIFF_CHECK(pooling_type == "max" || pooling_type == "avg", "pool3d: pooling_type must be ",
              "\"max\" or \"avg\", got \"", pooling_type, "\"");
  SKIFF_CHECK(ksize.size() == 3 && positive(ksize),
              "pool3d: ksize must hold 3 positive values, got ", Shape(ksize));
  SKIFF_CHECK(strides.size() == 3 && positive(strides),
              "pool3d: strides must hold 3 positive values, got ", Shape(strides));
  SKIFF_CHECK((paddings.size() == 3 || paddings.size() == 6) &&
                  std::all_of(paddings.begin(), paddings.end(), [](int64_t p) { return p >= 0; }),
              "pool3d: paddings must hold 3 (D, H, W) or 6 (front, back, top, bottom, left, "
              "right) non-negative values, got ",
              Shape(paddings));
  Pool3dOptions o;
  o.max = pooling_type == "max";
  const bool both_sides = paddings.size() == 3;
  for (int d = 0; d < 3; ++d) {
    o.ksize[d] = ksize[d];
    o.strides[d] = strides[d];
    o.paddings[2 * d] = both_sides ? paddings[d] : paddings[2 * d];
    o.paddings[2 * d + 1] = both_sides ? paddings[d] : paddings[2 * d + 1];
  }
  o.global_pooling = global_pooling;
  o.adaptive = adaptive;
  o.exclusive = exclusive;
  o.ceil_mode = ceil_mode;
  return o;
}

Shape pool3d_output_shape(const Shape& x, const Pool3dOptions& o) {
  SKIFF_CHECK(x.rank() == 5, "pool3d: X must be [N, C, D, H, W], got ", x);
  SKIFF_CHECK(x[2] != 0 && x[3] != 0 && x[4] != 0, "pool3d: X ", x, " has empty volumes");
  Shape out{x[0], x[1], 1, 1, 1};
  if (o.global_pooling) return out;
  static const char* const kDims[] = {"D", "H", "W"};
  for (int d = 0; d < 3; ++d) {
    const int64_t in = x[2 + d];
    if (o.adaptive) {
      out[2 + d] = o.ksize[d];
    } else {
      out[2 + d] = in < 0 ? -1
                          : pooled_extent("pool3d", kDims[d], in, o.ksize[d], o.strides[d],
                                          o.paddings[2 * d], o.paddings[2 * d + 1], o.ceil_mode);
    }
  }
  return out;
}

void pool3d(const Tensor& x, const Pool3dOptions& o, Tensor* out, Tensor* mask) {
  SKIFF_CHECK(is_floating(x.dtype()) && x.dtype() != DType::kBF16,
              "pool3d: X must be float32 or float64, got ", x.type_str());
  SKIFF_CHECK(o.max || !mask, "pool3d: Mask (argmax indices) is only made by max pooling");
  const VolumeGeometry g = geometry(x.shape(), o);
  const Shape out_shape{x.dim(0), x.dim(1), g.axis[0].out, g.axis[1].out, g.axis[2].out};
  Tensor result = Tensor::empty(out_shape, x.dtype());  // out may be x
  if (mask) mask->resize(out_shape, DType::kI32);
  const int64_t in_cells = g.in_cells(), out_cells = g.out_cells();
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    T* yp = result.data<T>();
    int32_t* mp = mask ? mask->data<int32_t>() : nullptr;
    parallel_for(g.volumes, grain(g), [&](int64_t begin, int64_t end) {
      for (int64_t v = begin; v < end; ++v) {
        pool_volume(g, xp + v * in_cells, yp + v * out_cells, mp ? mp + v * out_cells : nullptr);
      }
    });
  });
  *out = result;
}

void pool3d_grad(const Tensor& x, const Tensor& out_grad, const Tensor* mask,
                 const Pool3dOptions& o, Tensor* x_grad) {
  SKIFF_CHECK(is_floating(x.dtype()) && x.dtype() != DType::kBF16 && out_grad.dtype() == x.dtype(),
              "pool3d_grad: X ", x.type_str(), " and Out@GRAD ", out_grad.type_str(),
              " must share a dtype, float32 or float64");
  const VolumeGeometry g = geometry(x.shape(), o);
  const Shape out_shape{x.dim(0), x.dim(1), g.axis[0].out, g.axis[1].out, g.axis[2].out};
  SKIFF_CHECK(out_grad.shape() == out_shape, "pool3d_grad: Out@GRAD ", out_grad.shape(),
              " should be ", out_shape, " for X ", x.shape());
  if (mask && !o.max) mask = nullptr;
  if (mask) {
    SKIFF_CHECK(mask->dtype() == DType::kI32 && mask->shape() == out_shape, "pool3d_grad: Mask ",
                mask->type_str(), " should be int32", out_shape);
  }
  Tensor result = Tensor::empty(x.shape(), x.dtype());  // x_grad may be an input
  const int64_t in_cells = g.in_cells(), out_cells = g.out_cells();
  std::atomic<bool> ok{true};
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* xp = x.data<T>();
    const T* dyp = out_grad.data<T>();
    const int32_t* mp = mask ? mask->data<int32_t>() : nullptr;
    T* dxp = result.data<T>();
    parallel_for(g.volumes, grain(g), [&](int64_t begin, int64_t end) {
      for (int64_t v = begin; v < end; ++v) {
        if (!pool_volume_grad(g, xp + v * in_cells, dyp + v * out_cells,
                              mp ? mp + v * out_cells : nullptr, dxp + v * in_cells)) {
          ok = false;
        }
      }
    });
  });
  SKIFF_CHECK(ok, "pool3d_grad: Mask holds an index outside its volume of ", in_cells,
              " cells (it must come from the forward pool3d of this X)");
  *x_grad = result;
}

}  // namespace skiff::kernels
