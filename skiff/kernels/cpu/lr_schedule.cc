#include "skiff/kernels/cpu/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace skiff::kernels {

double step_decay_lr(double base_lr, double step, int64_t step_size, double gamma) {
  SKIFF_CHECK(step_size > 0, "step decay: step_size must be > 0, got ", step_size);
  const double decays = std::floor(step / static_cast<double>(step_size));  // whole periods
  return base_lr * std::pow(gamma, decays);
}

double cosine_annealing_lr(double base_lr, double step, int64_t t_max, double eta_min) {
  SKIFF_CHECK(t_max > 0, "cosine annealing: T_max must be > 0, got ", t_max);
  const double pi = std::acos(-1.0);
  return eta_min + (base_lr - eta_min) * (1 + std::cos(pi * step / static_cast<double>(t_max))) / 2;
}

double linear_warmup_lr(double step, int64_t warmup_steps, double start_lr, double end_lr,
                        double after_lr) {
  SKIFF_CHECK(warmup_steps > 0, "linear warmup: warmup_steps must be > 0, got ", warmup_steps);
  if (step >= static_cast<double>(warmup_steps)) return after_lr;
  return (end_lr - start_lr) * (step / static_cast<double>(warmup_steps)) + start_lr;
}

double exponential_decay_lr(double base_lr, double step, double gamma) {
  return base_lr * std::pow(gamma, step);
}

double natural_exp_decay_lr(double base_lr, double step, double gamma) {
  return base_lr * std::exp(-gamma * step);
}

double inverse_time_decay_lr(double base_lr, double step, double gamma) {
  return base_lr / (1 + gamma * step);
}

double polynomial_decay_lr(double base_lr, double step, int64_t decay_steps, double end_lr,
                           double power, bool cycle) {
  SKIFF_CHECK(decay_steps > 0, "polynomial decay: decay_steps must be > 0, got ", decay_steps);
  double steps = static_cast<double>(decay_steps);
  if (cycle) {
    steps *= std::max(1.0, std::ceil(step / steps));
  } else {
    step = std::min(step, steps);
  }
  return (base_lr - end_lr) * std::pow(1 - step / steps, power) + end_lr;
}

double piecewise_lr(double step, const std::vector<double>& boundaries,
                    const std::vector<double>& values) {
  SKIFF_CHECK(values.size() == boundaries.size() + 1, "piecewise decay: ", boundaries.size(),
              " boundaries need ", boundaries.size() + 1, " values, got ", values.size());
  for (size_t i = 0; i < boundaries.size(); ++i) {
    if (step < boundaries[i]) return values[i];
  }
  return values.back();
}

double multistep_decay_lr(double base_lr, double step, const std::vector<double>& milestones,
                          double gamma) {
  const auto passed =
      std::count_if(milestones.begin(), milestones.end(), [&](double m) { return step >= m; });
  return base_lr * std::pow(gamma, static_cast<double>(passed));
}

double noam_decay_lr(double base_lr, double step, double d_model, double warmup_steps) {
  SKIFF_CHECK(d_model > 0 && warmup_steps > 0,
              "noam decay: d_model and warmup_steps must be > 0, got ", d_model, " and ",
              warmup_steps);
  const double a = step == 0 ? 1.0 : std::pow(step, -0.5);
  const double b = std::pow(warmup_steps, -1.5) * step;
  return base_lr * std::pow(d_model, -0.5) * std::min(a, b);
}

double read_step(const Tensor& step, int64_t offset) {
  SKIFF_CHECK(step.initialized() && step.numel() == 1 && step.dtype() != DType::kBool,
              "learning-rate schedule: Step must be a one-element numeric counter, got ",
              step.type_str());
  return std::max(step.item<double>() - static_cast<double>(offset), 0.0);
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
