// Batch normalization over the channels of [N, C, ...] tensors and layer normalization
// over the trailing dims (PaddlePaddle's batch_norm and layer_norm), with gradients.
// Statistics accumulate in float64 for float32 and float64 inputs alike.
//
//   BatchNormOptions o;                            // training: batch statistics
//   batch_norm(x, scale, bias, mean, var, o, &y, &mean, &var, &saved_mean, &saved_inv_std);
//   layer_norm(x, &scale, &bias, /*begin_norm_axis=*/1, 1e-5, &y, &row_mean, &row_var);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

struct BatchNormOptions {
  double epsilon = 1e-5;
  double momentum = 0.9;           // running = running * momentum + batch * (1 - momentum)
  bool use_running_stats = false;  // is_test or use_global_stats: normalize by Mean/Variance
};

// Checks X [N, C, ...] (rank 2 to 5) against Scale, Bias, Mean and Variance, each [C];
// -1 dims match anything. Throws naming the shapes.
void check_batch_norm_shapes(const Shape& x, const Shape& scale, const Shape& bias,
                             const Shape& mean, const Shape& variance);

// y = (x - m) / sqrt(v + epsilon) * scale + bias per channel, where (m, v) are the batch's
// mean and biased variance over N and the spatial dims in training, or (mean, variance)
// with use_running_stats. Training sets mean_out / variance_out to the running averages
// (momentum); otherwise they get mean / variance. saved_mean and saved_inv_std get m and
// 1 / sqrt(v + epsilon), the values the gradient needs. Outputs other than y may be null;
// mean_out may be &mean and variance_out &variance (in place).
void batch_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, const Tensor& mean,
                const Tensor& variance, const BatchNormOptions& o, Tensor* y, Tensor* mean_out,
                Tensor* variance_out, Tensor* saved_mean, Tensor* saved_inv_std);

// Gradients of batch_norm for y_grad (any output may be null): through the batch
// statistics in training, or the plain affine map when use_running_stats.
void batch_norm_grad(const Tensor& x, const Tensor& scale, const Tensor& saved_mean,
                     const Tensor& saved_inv_std, const Tensor& y_grad, bool use_running_stats,
                     Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad);

// [left] where left is the product of X's dims before begin_norm_axis (in [0, rank));
// -1 when one of them is unknown. Throws for an axis out of range.
Shape layer_norm_stats_shape(const Shape& x, int64_t begin_norm_axis);
// Checks that Scale or Bias (`what`) is [right], right the product of the dims from
// begin_norm_axis on (-1 dims match anything).
void check_layer_norm_param(const char* what, const Shape& param, const Shape& x,
                            int64_t begin_norm_axis);

// For X seen as [left, right]: y = (x - mean) / sqrt(variance + epsilon) * scale + bias
// per row, with each row's mean and biased variance written to `mean` and `variance`
// ([left]). scale and bias ([right]) may be null (1 and 0).
void layer_norm(const Tensor& x, const Tensor* scale, const Tensor* bias, int64_t begin_norm_axis,
                double epsilon, Tensor* y, Tensor* mean, Tensor* variance);

// Gradients of layer_norm for y_grad from the forward statistics; scale may be null
// (taken as 1), and so may any output.
void layer_norm_grad(const Tensor& x, const Tensor* scale, const Tensor& mean,
                     const Tensor& variance, const Tensor& y_grad, int64_t begin_norm_axis,
                     double epsilon, Tensor* x_grad, Tensor* scale_grad, Tensor* bias_grad);

}  // namespace skiff::kernels
