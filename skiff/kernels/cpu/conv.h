// 2-D convolution and transposed convolution over NCHW tensors with PaddlePaddle's
// conv2d / conv2d_transpose semantics, their 3-D forms over NCDHW (conv3d,
// conv3d_transpose), and their gradients. float32 runs oneDNN (cached primitives), float64
// skiff's own im2col + gemm loops; conv2d, conv3d and their gradients also take bfloat16 (oneDNN's
// bf16 primitives, float32 accumulation, results rounded once).
//
//   ConvParams p = conv_params(/*strides=*/{1, 1}, /*paddings=*/{1, 1}, /*dilations=*/{1, 1},
//                              /*groups=*/1);
//   Tensor out;
//   conv2d(input, filter, &bias, p, /*fuse_relu=*/false, &out);   // bias may be nullptr
//   conv2d_grad(input, filter, out_grad, p, &input_grad, &filter_grad, &bias_grad);
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Strides, zero padding (front, back, top, bottom, left, right), dilations (1 = a dense
// kernel), the number of groups, and a transposed convolution's extra output planes / rows
// / columns. 2-D convolutions leave the depth fields at their defaults.
struct ConvParams {
  int spatial_rank = 2;
  int64_t stride_d = 1, stride_h = 1, stride_w = 1;
  int64_t pad_front = 0, pad_back = 0;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  int64_t dilation_d = 1, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  int64_t output_pad_d = 0, output_pad_h = 0, output_pad_w = 0;
};

// Reads PaddlePaddle's attribute lists: strides and dilations of 2 positive values,
// paddings of 2 (height, width) or 4 (top, bottom, left, right) values >= 0, groups >= 1,
// output_padding empty or 2 values >= 0. Throws skiff::Error naming a bad list.
ConvParams conv_params(const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                       const std::vector<int64_t>& dilations, int64_t groups,
                       const std::vector<int64_t>& output_padding = {});

// conv_params for 3-D convolutions: strides and dilations of 3 positive values, paddings of
// 3 (depth, height, width) or 6 (front, back, top, bottom, left, right) values >= 0,
// output_padding empty or 3 values >= 0.
ConvParams conv3d_params(const std::vector<int64_t>& strides, const std::vector<int64_t>& paddings,
                         const std::vector<int64_t>& dilations, int64_t groups,
                         const std::vector<int64_t>& output_padding = {});

// conv2d's output shape [N, M, OH, OW] for Input [N, C, H, W] and Filter
// [M, C / groups, KH, KW]; -1 dims propagate. Throws naming the shapes when ranks are not
// 4, channels do not match, groups do not divide C and M, or the padded input is smaller
// than the dilated kernel.
Shape conv2d_shape(const Shape& input, const Shape& filter, const ConvParams& p);

// True when `bias` can be conv2d's Bias for `m` output channels: [M] or [1, M, 1, 1]
// (-1 dims, in the bias or in m, match anything).
bool conv2d_bias_shape_ok(const Shape& bias, int64_t m);

// out = conv2d(input, filter) (+ bias [M] or [1, M, 1, 1] when not null), then max(0, .) when
// fuse_relu. float32, float64 or bfloat16; every operand of one dtype.
void conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias, const ConvParams& p,
            bool fuse_relu, Tensor* out);

// Gradients of conv2d without fused relu: input_grad (Input's shape), filter_grad (Filter's
// shape), bias_grad ([M]), in the operands' dtype; any of them may be nullptr.
void conv2d_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                 const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad);

// conv2d_transpose's output shape [N, M, OH, OW] for Input [N, C, H, W] and Filter
// [C, M / groups, KH, KW], OH = (H - 1) * stride - pad_top - pad_bottom +
// dilation * (KH - 1) + 1 + output_pad_h (OW alike); -1 dims propagate. Throws naming the
// shapes on the mistakes conv2d_shape names and on output padding not below the stride or
// the dilation.
Shape conv2d_transpose_shape(const Shape& input, const Shape& filter, const ConvParams& p);

// out = conv2d_transpose(input, filter): the adjoint of conv2d with the same filter, the
// input playing conv2d's output. float32 or float64.
void conv2d_transpose(const Tensor& input, const Tensor& filter, const ConvParams& p, Tensor* out);

// Gradients of conv2d_transpose: input_grad, filter_grad (either may be nullptr).
void conv2d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                           const ConvParams& p, Tensor* input_grad, Tensor* filter_grad);

// conv3d's output shape [N, M, OD, OH, OW] for Input [N, C, D, H, W] and Filter
// [M, C / groups, KD, KH, KW] (p from conv3d_params); checks as conv2d_shape.
Shape conv3d_shape(const Shape& input, const Shape& filter, const ConvParams& p);

// True when `bias` can be conv3d's Bias for `m` output channels: [M] or [1, M, 1, 1, 1].
bool conv3d_bias_shape_ok(const Shape& bias, int64_t m);

// out = conv3d(input, filter) (+ bias when not null), then max(0, .) when fuse_relu; dtypes
// as conv2d.
void conv3d(const Tensor& input, const Tensor& filter, const Tensor* bias, const ConvParams& p,
            bool fuse_relu, Tensor* out);

// Gradients of conv3d: input_grad, filter_grad, bias_grad ([M]); any may be nullptr.
void conv3d_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                 const ConvParams& p, Tensor* input_grad, Tensor* filter_grad, Tensor* bias_grad);

// conv3d_transpose's output shape [N, M, OD, OH, OW] for Input [N, C, D, H, W] and Filter
// [C, M / groups, KD, KH, KW], each axis as conv2d_transpose_shape's.
Shape conv3d_transpose_shape(const Shape& input, const Shape& filter, const ConvParams& p);

// out = conv3d_transpose(input, filter): the adjoint of conv3d. float32 or float64.
void conv3d_transpose(const Tensor& input, const Tensor& filter, const ConvParams& p, Tensor* out);

// Gradients of conv3d_transpose: input_grad, filter_grad (either may be nullptr).
void conv3d_transpose_grad(const Tensor& input, const Tensor& filter, const Tensor& out_grad,
                           const ConvParams& p, Tensor* input_grad, Tensor* filter_grad);

}  // namespace skiff::kernels
