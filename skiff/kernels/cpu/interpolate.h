// Resizing of NCW / NCHW / NCDHW tensors by nearest, (bi/tri)linear or bicubic
// interpolation with PaddlePaddle's interp_v2 rules, and the adjoint (the gradient).
//
//   InterpOptions o = interp_options("bilinear", /*spatial_rank=*/2, {-1, 8, 8}, {},
//                                    /*align_corners=*/false, /*align_mode=*/0);
//   Tensor out;
//   interpolate(x, o, &out);                 // x [N, C, H, W] -> out [N, C, 8, 8]
//   interpolate_grad(x.shape(), out_grad, o, &x_grad);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class InterpMethod { kNearest, kLinear, kCubic };

// The resize of the last `spatial_rank` (1, 2 or 3) dims. Per spatial axis: the requested
// output size (-1: taken from the scale) and scale (<= 0: none). With a scale, the output
// size is int(float(in) * scale) and the source step 1 / scale; otherwise in / out.
struct InterpOptions {
  InterpMethod method = InterpMethod::kNearest;
  int spatial_rank = 2;
  int64_t out_size[3] = {-1, -1, -1};
  double scale[3] = {0, 0, 0};
  // Corner pixels' centres map onto each other: source = k * (in - 1) / (out - 1).
  bool align_corners = false;
  // Linear modes without align_corners: 0 = half-pixel centres (source = (k + 0.5) *
  // step - 0.5, clamped at 0), 1 = asymmetric (source = k * step).
  int align_mode = 0;
};

// Reads Paddle's attributes: `method` is "nearest", "linear", "bilinear", "trilinear" or
// "bicubic" (its spatial rank must agree); `out_dhw` holds (out_d, out_h, out_w), of which
// the last `spatial_rank` are used; `scale` is empty, one value for every axis, or one per
// axis. Throws skiff::Error naming a bad value.
InterpOptions interp_options(const std::string& method, int spatial_rank,
                             const std::vector<int64_t>& out_dhw, const std::vector<double>& scale,
                             bool align_corners, int align_mode);

// `o` with the output sizes held by `out_size` (int32 / int64 [spatial_rank]) and the scales
// held by `scale` ([1] or [spatial_rank], any numeric dtype) in place of its own; either may
// be nullptr. Throws naming a wrong count or a size that is not positive.
InterpOptions with_size_inputs(InterpOptions o, const Tensor* out_size, const Tensor* scale);

// The output shape for input `x` ([N, C] + spatial_rank dims); -1 dims of x propagate to
// axes sized by scale. Throws naming the shape when the rank is wrong or an axis has
// neither a positive size nor a scale, or when a computed size is not positive.
Shape interp_output_shape(const Shape& x, const InterpOptions& o);

// out = the resize of x (float32 or float64) to interp_output_shape(x.shape(), o).
void interpolate(const Tensor& x, const InterpOptions& o, Tensor* out);

// x_grad (shape `x_shape`, out_grad's dtype) = the adjoint of the resize applied to
// out_grad, whose spatial dims give the output size.
void interpolate_grad(const Shape& x_shape, const Tensor& out_grad, const InterpOptions& o,
                      Tensor* x_grad);

}  // namespace skiff::kernels
