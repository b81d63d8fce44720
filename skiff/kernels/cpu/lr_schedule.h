// Learning-rate schedules at a step, in the closed forms of PaddlePaddle's decaying
// schedules (paddle.optimizer.lr): StepDecay, CosineAnnealingDecay, LinearWarmup,
// ExponentialDecay, NaturalExpDecay, InverseTimeDecay, PolynomialDecay, PiecewiseDecay,
// MultiStepDecay and NoamDecay. The step is a double: a counter holds an integer, and
// Paddle's step(epoch) also takes a fractional epoch.
//
//   double lr = kernels::step_decay_lr(0.1, /*step=*/25, /*step_size=*/10, 0.5);  // 0.025
//   kernels::write_lr(lr, DType::kF32, &lr_tensor);
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// base_lr * gamma^floor(step / step_size); step_size > 0.
double step_decay_lr(double base_lr, double step, int64_t step_size, double gamma);

// eta_min + (base_lr - eta_min) * (1 + cos(pi * step / t_max)) / 2; t_max > 0.
double cosine_annealing_lr(double base_lr, double step, int64_t t_max, double eta_min);

// start_lr + (end_lr - start_lr) * step / warmup_steps while step < warmup_steps, then
// after_lr (the wrapped schedule's value).
double linear_warmup_lr(double step, int64_t warmup_steps, double start_lr, double end_lr,
                        double after_lr);

// base_lr * gamma^step.
double exponential_decay_lr(double base_lr, double step, double gamma);

// base_lr * exp(-gamma * step).
double natural_exp_decay_lr(double base_lr, double step, double gamma);

// base_lr / (1 + gamma * step).
double inverse_time_decay_lr(double base_lr, double step, double gamma);

// (base_lr - end_lr) * (1 - step / steps)^power + end_lr, steps = decay_steps and step
// held at decay_steps; with cycle, steps = decay_steps * max(1, ceil(step / decay_steps)).
double polynomial_decay_lr(double base_lr, double step, int64_t decay_steps, double end_lr,
                           double power, bool cycle);

// values[i] for the first boundaries[i] > step, else values.back();
// values.size() == boundaries.size() + 1.
double piecewise_lr(double step, const std::vector<double>& boundaries,
                    const std::vector<double>& values);

// base_lr * gamma^(the number of milestones <= step).
double multistep_decay_lr(double base_lr, double step, const std::vector<double>& milestones,
                          double gamma);

// base_lr * d_model^-0.5 * min(step^-0.5 (1 at step 0), warmup_steps^-1.5 * step).
double noam_decay_lr(double base_lr, double step, double d_model, double warmup_steps);

// The value of a one-element step counter (any numeric dtype), minus `offset`,
// clamped at 0 (a schedule wrapped by a warmup starts when the warmup ends).
double read_step(const Tensor& step, int64_t offset = 0);

// The value of a one-element floating tensor holding a learning rate (the wrapped
// schedule's value a warmup hands on).
double read_lr(const Tensor& lr);

// out = [lr] as a one-element [1] tensor of `dtype` (float32 or float64).
void write_lr(double lr, DType dtype, Tensor* out);

}  // namespace skiff::kernels
