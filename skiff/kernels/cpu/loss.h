// Loss functions and their gradients (PaddlePaddle semantics), float32 and float64.
//
//   kernels::mse_loss(pred, target, &err);                     // (pred - target)^2
//   kernels::sigmoid_cross_entropy_with_logits(logits, labels, {}, &loss);
//   kernels::nll_loss(log_probs, labels, nullptr, {}, &loss, &total_weight);
#pragma once

#include <cstdint>
#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = (x - label)^2 elementwise; x and label have one shape and dtype.
void mse_loss(const Tensor& x, const Tensor& label, Tensor* out);
// x_grad = 2 (x - label) out_grad and label_grad = -x_grad; either may be nullptr.
void mse_loss_grad(const Tensor& x, const Tensor& label, const Tensor& out_grad, Tensor* x_grad,
                   Tensor* label_grad);

struct SigmoidCrossEntropyOptions {
  int64_t ignore_index = -100;  // elements whose label equals it have loss and gradient 0
  bool normalize = false;       // divide by the number of elements not ignored
};

// out = max(x, 0) - x * label + log(1 + exp(-|x|)) elementwise (stable for large |x|);
// 0 where label == ignore_index. With normalize, divided by the count of the other
// elements (an all-ignored input gives zeros).
void sigmoid_cross_entropy_with_logits(const Tensor& x, const Tensor& label,
                                       const SigmoidCrossEntropyOptions& opts, Tensor* out);
// x_grad = (sigmoid(x) - label) * out_grad, 0 where ignored, normalized like the loss.
void sigmoid_cross_entropy_with_logits_grad(const Tensor& x, const Tensor& label,
                                            const Tensor& out_grad,
                                            const SigmoidCrossEntropyOptions& opts, Tensor* x_grad);

enum class Reduction { kNone, kSum, kMean };
// "none", "sum" or "mean"; throws for anything else.
Reduction reduction_from_name(const std::string& name);

struct NllLossOptions {
  Reduction reduction = Reduction::kMean;
  int64_t ignore_index = -100;
};

// The Out shape of nll_loss for X [N, C]: [N] without reduction, [] otherwise.
Shape nll_loss_out_shape(const Shape& x, Reduction reduction);

// Negative log-likelihood of X [N, C] (log-probabilities) at int64/int32 labels [N]
// (or [N, 1]): loss_n = -w[label_n] * x[n, label_n], 0 where label_n == ignore_index;
// w is `weight` [C] or ones when nullptr. total_weight [] = sum of w[label_n] over the
// samples not ignored. out: the losses [N], their sum [], or sum / total_weight []
// (0 when total_weight is 0). Throws for a label outside [0, C).
void nll_loss(const Tensor& x, const Tensor& label, const Tensor* weight,
              const NllLossOptions& opts, Tensor* out, Tensor* total_weight);
// x_grad [N, C]: -w[label_n] * g_n at (n, label_n), zero elsewhere; g_n is out_grad[n]
// without reduction, out_grad for sum, out_grad / total_weight for mean (0 when
// total_weight is 0).
void nll_loss_grad(const Shape& x_shape, const Tensor& label, const Tensor* weight,
                   const Tensor& out_grad, const NllLossOptions& opts, Tensor* x_grad);

}  // namespace skiff::kernels
