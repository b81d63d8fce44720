// unfold and fold through conv_direct.cc's im2col / col2im_add, one image at a time.
#include "skiff/kernels/cpu/unfold.h"

#include <algorithm>

#include "skiff/core/error.h"
#include "skiff/core/parallel.h"
#include "skiff/kernels/cpu/conv_geometry.h"

namespace skiff::kernels {
namespace {

void check_pair(const char* op, const char* name, const std::vector<int64_t>& v, int64_t least) {
  SKIFF_CHECK(v.size() == 2 && v[0] >= least && v[1] >= least, op, ": ", name,
              " must hold 2 values >= ", least, ", got ", Shape(v));
}

// The one-image, one-group convolution geometry whose im2col is unfold's.
ConvGeometry image_geometry(const UnfoldGeometry& u, int64_t c, int64_t h, int64_t w, int64_t oh,
                            int64_t ow) {
  ConvGeometry g;
  g.n = 1;
  g.c = c;
  g.h = h;
  g.w = w;
  g.m = c;
  g.oh = oh;
  g.ow = ow;
  g.kh = u.kh;
  g.kw = u.kw;
  g.stride_h = u.stride_h;
  g.stride_w = u.stride_w;
  g.pad_top = u.pad_top;
  g.pad_left = u.pad_left;
  g.pad_bottom = u.pad_bottom;
  g.pad_right = u.pad_right;
  g.dilation_h = u.dilation_h;
  g.dilation_w = u.dilation_w;
  return g;
}

// Images per thread chunk: enough column entries to pay for a thread.
int64_t image_grain(int64_t per_image) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(per_image, 1));
}

}  // namespace

UnfoldGeometry unfold_geometry(const char* op, const std::vector<int64_t>& kernel_sizes,
                               const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& paddings,
                               const std::vector<int64_t>& dilations) {
  check_pair(op, "kernel_sizes", kernel_sizes, 1);
  check_pair(op, "strides", strides, 1);
  check_pair(op, "dilations", dilations, 1);
  SKIFF_CHECK((paddings.size() == 2 || paddings.size() == 4) &&
                  std::all_of(paddings.begin(), paddings.end(), [](int64_t p) { return p >= 0; }),
              op, ": paddings must hold 2 or 4 values >= 0, got ", Shape(paddings));
  UnfoldGeometry g;
  g.kh = kernel_sizes[0];
  g.kw = kernel_sizes[1];
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.dilation_w = dilations[1];
  const bool four = paddings.size() == 4;
  g.pad_top = paddings[0];
  g.pad_left = paddings[1];
  g.pad_bottom = four ? paddings[2] : paddings[0];
  g.pad_right = four ? paddings[3] : paddings[1];
  return g;
}

void window_counts(const char* op, const UnfoldGeometry& g, int64_t h, int64_t w, int64_t* oh,
                   int64_t* ow) {
  const int64_t span_h = g.dilation_h * (g.kh - 1) + 1, span_w = g.dilation_w * (g.kw - 1) + 1;
  const int64_t ph = h + g.pad_top + g.pad_bottom, pw = w + g.pad_left + g.pad_right;
  SKIFF_CHECK(h < 0 || ph >= span_h, op, ": the padded height ", ph,
              " is smaller than the dilated kernel height ", span_h);
  SKIFF_CHECK(w < 0 || pw >= span_w, op, ": the padded width ", pw,
              " is smaller than the dilated kernel width ", span_w);
  *oh = h < 0 ? -1 : (ph - span_h) / g.stride_h + 1;
  *ow = w < 0 ? -1 : (pw - span_w) / g.stride_w + 1;
}

Shape unfold_shape(const Shape& x, const UnfoldGeometry& g) {
  SKIFF_CHECK(x.rank() == 4, "unfold: X must be 4-D [N, C, H, W], got ", x);
  int64_t oh = 0, ow = 0;
  window_counts("unfold", g, x[2], x[3], &oh, &ow);
  const int64_t rows = x[1] < 0 ? -1 : x[1] * g.kh * g.kw;
  return Shape{x[0], rows, oh < 0 || ow < 0 ? -1 : oh * ow};
}

Shape fold_shape(const Shape& cols, const UnfoldGeometry& g, int64_t h, int64_t w) {
  SKIFF_CHECK(cols.rank() == 3, "fold: X must be 3-D [N, C * kh * kw, L], got ", cols);
  SKIFF_CHECK(h > 0 && w > 0, "fold: output_sizes must be positive, got (", h, ", ", w, ")");
  int64_t oh = 0, ow = 0;
  window_counts("fold", g, h, w, &oh, &ow);
  const int64_t k = g.kh * g.kw;
  SKIFF_CHECK(cols[1] < 0 || cols[1] % k == 0, "fold: X ", cols,
              " has channels not divisible by kernel_sizes' product ", k);
  SKIFF_CHECK(cols[2] < 0 || cols[2] == oh * ow, "fold: X ", cols, " holds ", cols[2],
              " windows, but output_sizes (", h, ", ", w, ") give ", oh, " x ", ow, " = ", oh * ow);
  return Shape{cols[0], cols[1] < 0 ? -1 : cols[1] / k, h, w};
}

void unfold(const Tensor& x, const UnfoldGeometry& u, Tensor* cols) {
  const Shape out_shape = unfold_shape(x.shape(), u);
  int64_t oh = 0, ow = 0;
  window_counts("unfold", u, x.dim(2), x.dim(3), &oh, &ow);
  const ConvGeometry g = image_geometry(u, x.dim(1), x.dim(2), x.dim(3), oh, ow);
  const int64_t in_image = g.c * g.h * g.w, out_image = out_shape[1] * out_shape[2];
  Tensor result = Tensor::empty(out_shape, x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    const T* src = x.data<T>();
    T* dst = result.data<T>();
    parallel_for(x.dim(0), image_grain(out_image), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) im2col(g, src + i * in_image, dst + i * out_image);
    });
  });
  *cols = std::move(result);
}

void fold(const Tensor& cols, const UnfoldGeometry& u, int64_t h, int64_t w, Tensor* out) {
  const Shape out_shape = fold_shape(cols.shape(), u, h, w);
  int64_t oh = 0, ow = 0;
  window_counts("fold", u, h, w, &oh, &ow);
  const ConvGeometry g = image_geometry(u, out_shape[1], h, w, oh, ow);
  const int64_t in_image = cols.dim(1) * cols.dim(2), out_image = g.c * h * w;
  Tensor result = Tensor::zeros(out_shape, cols.dtype());
  SKIFF_DISPATCH_FLOATING(cols.dtype(), T, {
    const T* src = cols.data<T>();
    T* dst = result.data<T>();
    parallel_for(cols.dim(0), image_grain(in_image), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) col2im_add(g, src + i * in_image, dst + i * out_image);
    });
  });
  *out = std::move(result);
}

}  // namespace skiff::kernels
