// 3-D max and average pooling over NCDHW tensors (PaddlePaddle's pool3d), and its
// gradient, with the window rules of pool2d (pool_geometry.h): fixed, adaptive or global
// windows, exclusive or inclusive averages, ceil mode.
//
//   Pool3dOptions o = pool3d_options("max", {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false, false,
//                                    true, false);
//   pool3d(x, o, &out, &mask);                    // mask: int32 argmax per output, may be null
//   pool3d_grad(x, out_grad, &mask, o, &x_grad);  // mask null: argmax recomputed from x
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Resolved pooling attributes, axes in (D, H, W) order.
struct Pool3dOptions {
  bool max = true;               // false: average
  int64_t ksize[3] = {1, 1, 1};  // window; the output size when adaptive
  int64_t strides[3] = {1, 1, 1};
  int64_t paddings[6] = {0, 0, 0, 0, 0, 0};  // front, back, top, bottom, left, right
  bool global_pooling = false;               // one window over the whole volume
  bool adaptive = false;                     // ksize is the output size
  bool exclusive = true;                     // average over input cells only
  bool ceil_mode = false;                    // output size rounded up
};

// Checks and converts Paddle's attributes: pooling_type "max" or "avg", ksize and strides
// of 3 positive values, paddings of 3 (both sides) or 6 non-negative values.
Pool3dOptions pool3d_options(const std::string& pooling_type, const std::vector<int64_t>& ksize,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings, bool global_pooling,
                             bool adaptive, bool exclusive, bool ceil_mode);

// The output shape [N, C, OD, OH, OW] of pooling X [N, C, D, H, W] (-1 dims allowed), each
// axis as pool2d_output_shape's; throws naming the shapes when a window does not fit.
Shape pool3d_output_shape(const Shape& x, const Pool3dOptions& o);

// out = max or average over each window of x (float32 or float64), as pool2d. `mask` (max
// only, may be null) gets int32 [N, C, OD, OH, OW]: the argmax as (d * H + h) * W + w
// within its volume, the first maximum in (d, h, w) order.
void pool3d(const Tensor& x, const Pool3dOptions& o, Tensor* out, Tensor* mask);

// x_grad = the gradient of pool3d(x) for out_grad (max: to each window's argmax, from
// `mask` when given; average: spread over the window like the forward).
void pool3d_grad(const Tensor& x, const Tensor& out_grad, const Tensor* mask,
                 const Pool3dOptions& o, Tensor* x_grad);

}  // namespace skiff::kernels
