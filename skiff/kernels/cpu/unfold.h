// unfold (im2col: the sliding windows of NCHW images as columns) and fold (col2im: the
// columns summed back into images), each the other's adjoint, with Paddle's semantics.
//
//   UnfoldGeometry g = unfold_geometry(/*kernel_sizes=*/{2, 2}, /*strides=*/{1, 1},
//                                      /*paddings=*/{0, 0, 0, 0}, /*dilations=*/{1, 1});
//   unfold(x, g, &cols);            // x [N, C, H, W] -> cols [N, C * 2 * 2, L]
//   fold(cols, g, {H, W}, &x_back);  // sums overlapping windows
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The windows: kernel (kh, kw), strides, zero padding (top, left, bottom, right: Paddle's
// order for unfold and fold) and dilations.
struct UnfoldGeometry {
  int64_t kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

// Reads Paddle's attribute lists (kernel_sizes, strides and dilations of 2 positive values,
// paddings of 2 (h, w) or 4 (top, left, bottom, right) values >= 0); `op` names the caller
// in errors.
UnfoldGeometry unfold_geometry(const char* op, const std::vector<int64_t>& kernel_sizes,
                               const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& paddings,
                               const std::vector<int64_t>& dilations);

// The number of window positions (oh, ow) along an image of (h, w); throws naming `op` and
// the sizes when the padded image is smaller than the dilated kernel. -1 sizes give -1.
void window_counts(const char* op, const UnfoldGeometry& g, int64_t h, int64_t w, int64_t* oh,
                   int64_t* ow);

// unfold's output shape [N, C * kh * kw, L] for x [N, C, H, W] (-1 dims propagate).
Shape unfold_shape(const Shape& x, const UnfoldGeometry& g);
// fold's output shape [N, C, H, W] for cols [N, C * kh * kw, L] and output (H, W); throws
// naming the shapes unless kh * kw divides the channels and L is the window count.
Shape fold_shape(const Shape& cols, const UnfoldGeometry& g, int64_t h, int64_t w);

// cols = the windows of x (float32 or float64) as columns, 0 where they reach padding.
void unfold(const Tensor& x, const UnfoldGeometry& g, Tensor* cols);
// out [N, C, h, w] = each column entry added into the image cell it stands for (the adjoint
// of unfold).
void fold(const Tensor& cols, const UnfoldGeometry& g, int64_t h, int64_t w, Tensor* out);

}  // namespace skiff::kernels
