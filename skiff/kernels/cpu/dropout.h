// Dropout (PaddlePaddle semantics): in training each element is kept with probability
// 1 - p, its mask drawn as Paddle's CPU kernel draws it (random.h: a nonzero seed gives
// the same mask on every run, seed 0 Paddle's mask after paddle.seed).
//
//   DropoutMode mode = dropout_mode("upscale_in_train");
//   dropout(x, /*p=*/0.5, /*is_test=*/false, /*seed=*/7, mode, &out, &mask);
//   dropout_grad(mask, out_grad, 0.5, false, mode, &x_grad);
#pragma once

#include <cstdint>
#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class DropoutMode {
  kUpscaleInTrain,    // train: x * mask / (1 - p); inference: x
  kDowngradeInInfer,  // train: x * mask;           inference: x * (1 - p)
};

// The mode named "upscale_in_train" or "downgrade_in_infer"; throws for another name.
DropoutMode dropout_mode(const std::string& name);

// Training (is_test false): mask[i] = (float32 draw i >= p) as bool, out = x * mask,
// scaled by 1 / (1 - p) in upscale mode (all zeros when p == 1). Inference: out = x
// (upscale) or x * (1 - p), and mask (when given) all true. p must lie in [0, 1]; seed 0
// draws from the global generator (set_global_seed). `mask` may be null at inference.
void dropout(const Tensor& x, double p, bool is_test, uint64_t seed, DropoutMode mode, Tensor* out,
             Tensor* mask);

// x_grad = out_grad * mask (/ (1 - p) in upscale mode) in training; out_grad (upscale) or
// out_grad * (1 - p) at inference, where the mask is not read.
void dropout_grad(const Tensor& mask, const Tensor& out_grad, double p, bool is_test,
                  DropoutMode mode, Tensor* x_grad);

}  // namespace skiff::kernels
