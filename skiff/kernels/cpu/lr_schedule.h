// Learning-rate schedules at an integer step, in the closed forms of PaddlePaddle's
// StepDecay, CosineAnnealingDecay and LinearWarmup.
//
//   double lr = kernels::step_decay_lr(0.1, /*step=*/25, /*step_size=*/10, 0.5);  // 0.025
//   kernels::write_lr(lr, DType::kF32, &lr_tensor);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// base_lr * gamma^floor(step / step_size); step_size > 0.
double step_decay_lr(double base_lr, int64_t step, int64_t step_size, double gamma);

// eta_min + (base_lr - eta_min) * (1 + cos(pi * step / t_max)) / 2; t_max > 0.
double cosine_annealing_lr(double base_lr, int64_t step, int64_t t_max, double eta_min);

// start_lr + (end_lr - start_lr) * step / warmup_steps while step < warmup_steps, then
// after_lr (the wrapped schedule's value).
double linear_warmup_lr(int64_t step, int64_t warmup_steps, double start_lr, double end_lr,
                        double after_lr);

// The value of a one-element step counter (any numeric dtype), minus `offset`,
// clamped at 0 (a schedule wrapped by a warmup starts when the warmup ends).
int64_t read_step(const Tensor& step, int64_t offset = 0);

// The value of a one-element floating tensor holding a learning rate (the wrapped
// schedule's value a warmup hands on).
double read_lr(const Tensor& lr);

// out = [lr] as a one-element [1] tensor of `dtype` (float32 or float64).
void write_lr(double lr, DType dtype, Tensor* out);

}  // namespace skiff::kernels
