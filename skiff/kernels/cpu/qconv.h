// int8 2-D convolution with int32 accumulation, the compute of a quantized Conv2D:
//
//   out[n, m] = (sum over m's group's channels and the window of input * filter)
//               * input_scale * filter_scale[m] + bias[m]          (relu'd if asked)
//
// input int8 [N, C, H, W], filter int8 [M, C / groups, KH, KW], input_scale float32 [1],
// filter_scale float32 [1] or [M] (per output channel), bias float32 [M] or [1, M, 1, 1] or
// empty; strides, paddings, dilations and groups as conv2d's (ConvParams). out float32
// [N, M, OH, OW], or int8 requantized onto out_scale's grid when out_scale (float32 [1]) is
// given; with max_pool_2x2 (int8 out only), then 2x2 max pooling at stride 2 as pool2d's
// ([N, M, OH / 2, OW / 2]), fused on oneDNN's path: the sums are pooled before the finish
// (which is monotone in them), so a quarter of the values are finished.
//
// The int32 sums come from oneDNN's int8 convolution (VNNI and AMX kernels) where its
// products are exact (with VNNI; without it, for an input with no negative value) and it
// has more than its reference loops: NHWC sums, chunks of images, finished into NCHW by
// int8_finish_transposed. Elsewhere (and in builds without oneDNN) each image's columns
// (im2col in int8; none for a 1x1 kernel of stride 1) times the filter rows, in int32
// (int8_gemm.h); images in parallel, or a single image's column panels. Both give the
// same values, bit for bit.
//
//   kernels::quantized_conv2d(xq, wq, x_scale, w_scale, bias, params, /*relu=*/true,
//                             /*max_pool_2x2=*/false, Tensor(), &y);
#pragma once

#include "skiff/core/tensor.h"
#include "skiff/kernels/cpu/conv.h"

namespace skiff::kernels {

void quantized_conv2d(const Tensor& input, const Tensor& filter, const Tensor& input_scale,
                      const Tensor& filter_scale, const Tensor& bias, const ConvParams& p,
                      bool relu, bool max_pool_2x2, const Tensor& out_scale, Tensor* out);

}  // namespace skiff::kernels
