// 2-D max and average pooling over NCHW tensors (PaddlePaddle's pool2d), and its
// gradient. Windows may be padded, fixed (ksize/strides), adaptive (PyTorch/Paddle
// bins: [floor(i*H/OH), ceil((i+1)*H/OH))) or global.
//
//   Pool2dOptions o = pool2d_options("max", {2, 2}, {2, 2}, {0, 0}, false, false, true, false);
//   pool2d(x, o, &out, &mask);                    // mask: int32 argmax per output, may be null
//   pool2d_grad(x, out_grad, &mask, o, &x_grad);  // mask null: argmax recomputed from x
//
// float32 and float64; bfloat16 through float32 (widened exactly, the result rounded once);
// int8 max pooling. Large float32 problems run on oneDNN where it is faster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Resolved pooling attributes (no heap storage: built on every kernel call).
struct Pool2dOptions {
  bool max = true;                     // false: average
  int64_t ksize[2] = {1, 1};           // window (H, W); the output size when adaptive
  int64_t strides[2] = {1, 1};         // (H, W)
  int64_t paddings[4] = {0, 0, 0, 0};  // top, bottom, left, right
  bool global_pooling = false;         // one window over the whole plane
  bool adaptive = false;               // ksize is the output size
  bool exclusive = true;               // average over input cells only, not padding
  bool ceil_mode = false;              // output size rounded up
};

// Checks and converts Paddle's attributes: pooling_type "max" or "avg", ksize and
// strides of 2 positive values, paddings of 2 ((H, W), both sides) or 4 (top, bottom,
// left, right) non-negative values.
Pool2dOptions pool2d_options(const std::string& pooling_type, const std::vector<int64_t>& ksize,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& paddings, bool global_pooling,
                             bool adaptive, bool exclusive, bool ceil_mode);

// The output shape [N, C, OH, OW] of pooling X ([N, C, H, W], -1 dims allowed) with OH =
// (H + top + bottom - kh) / sh + 1 (rounded up in ceil mode, where a last window that
// would start in the bottom padding is dropped); throws naming the shapes when a window
// does not fit.
Shape pool2d_output_shape(const Shape& x, const Pool2dOptions& o);

// out = max or average over each window of x. Padding never wins a max; averages divide
// by the number of input cells in the window (exclusive or adaptive), or else by its
// cells within the padded input (kh * kw unless ceil mode reaches past the padding).
// `mask` (max pooling only, may be null) gets int32 [N, C, OH, OW]: the argmax of each
// window as h * W + w within its plane, the first maximum in row-major order.
void pool2d(const Tensor& x, const Pool2dOptions& o, Tensor* out, Tensor* mask);

// x_grad = the gradient of pool2d(x) for out_grad: max pooling routes each output's
// gradient to its window's argmax (read from `mask` when given, else recomputed from x),
// average pooling spreads it over the window's cells divided like the forward.
void pool2d_grad(const Tensor& x, const Tensor& out_grad, const Tensor* mask,
                 const Pool2dOptions& o, Tensor* x_grad);

}  // namespace skiff::kernels
