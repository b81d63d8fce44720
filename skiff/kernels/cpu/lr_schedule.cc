#include "skiff/kernels/cpu/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace skiff::kernels {

double step_decay_lr(double base_lr, int64_t step, int64_t step_size, double gamma) {
  SKIFF_CHECK(step_size > 0, "step decay: step_size must be > 0, got ", step_size);
  const int64_t decays = step / step_size;  // whole periods completed
  return base_lr * std::pow(gamma, static_cast<double>(decays));
}

double cosine_annealing_lr(double base_lr, int64_t step, int64_t t_max, double eta_min) {
  SKIFF_CHECK(t_max > 0, "cosine annealing: T_max must be > 0, got ", t_max);
  const double pi = std::acos(-1.0);
  return eta_min + (base_lr - eta_min) *
                       (1 + std::cos(pi * static_cast<double>(step) / static_cast<double>(t_max))) /
                       2;
}

double linear_warmup_lr(int64_t step, int64_t warmup_steps, double start_lr, double end_lr,
                        double after_lr) {
  SKIFF_CHECK(warmup_steps > 0, "linear warmup: warmup_steps must be > 0, got ", warmup_steps);
  if (step >= warmup_steps) return after_lr;
  return start_lr +
         (end_lr - start_lr) * static_cast<double>(step) / static_cast<double>(warmup_steps);
}

int64_t read_step(const Tensor& step, int64_t offset) {
  SKIFF_CHECK(step.initialized() && step.numel() == 1 && step.dtype() != DType::kBool,
              "learning-rate schedule: Step must be a one-element numeric counter, got ",
              step.type_str());
  return std::max<int64_t>(step.item<int64_t>() - offset, 0);
}

double read_lr(const Tensor& lr) {
  SKIFF_CHECK(lr.numel() == 1, "LearningRate must have one element, got ", lr.type_str());
  return lr.item<double>();
}

void write_lr(double lr, DType dtype, Tensor* out) {
  out->resize(Shape{1}, dtype);
  SKIFF_DISPATCH_FLOATING(dtype, T, *out->data<T>() = static_cast<T>(lr));
}

}  // namespace skiff::kernels
