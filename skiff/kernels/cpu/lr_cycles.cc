#include "skiff/kernels/cpu/lr_cycles.h"

#include <algorithm>
#include <cmath>

namespace skiff::kernels {

namespace {

double half_cosine(double start, double end, double fraction) {
  return end + (start - end) / 2.0 * (std::cos(std::acos(-1.0) * fraction) + 1);
}

}  // namespace

double linear_lr(double base_lr, double step, int64_t total_steps, double start_factor,
                 double end_factor) {
  SKIFF_CHECK(total_steps > 0, "linear lr: total_steps must be > 0, got ", total_steps);
  const double total = static_cast<double>(total_steps);
  return base_lr * (start_factor + (end_factor - start_factor) * std::min(step, total) / total);
}

double one_cycle_lr(double step, int64_t total_steps, double max_lr, double divide_factor,
                    double end_lr, double phase_pct, const std::string& anneal_strategy,
                    bool three_phase) {
  SKIFF_CHECK(total_steps > 0 && divide_factor > 0,
              "one cycle: total_steps and divide_factor must be > 0, got ", total_steps, " and ",
              divide_factor);
  SKIFF_CHECK(anneal_strategy == "cos" || anneal_strategy == "linear",
              "one cycle: anneal_strategy must be 'cos' or 'linear', got '", anneal_strategy, "'");
  SKIFF_CHECK(step <= static_cast<double>(total_steps), "OneCycleLR: stepped ", step,
              " times, past total_steps ", total_steps);
  const double initial = max_lr / divide_factor;
  const double total = static_cast<double>(total_steps);
  const double up_end = phase_pct * total - 1;
  struct Phase {
    double first, last, start, end;
  };
  const Phase two[] = {{0, up_end, initial, max_lr}, {up_end, total - 1, max_lr, end_lr}};
  const Phase three[] = {{0, up_end, initial, max_lr},
                         {up_end, 2 * phase_pct * total - 2, max_lr, initial},
                         {2 * phase_pct * total - 2, total - 1, initial, end_lr}};
  const Phase* phases = three_phase ? three : two;
  const size_t count = three_phase ? 3 : 2;
  for (size_t i = 0;; ++i) {
    const Phase& p = phases[i];
    if (step <= p.last || i + 1 == count) {
      const double span = p.last - p.first;  // 0 for a phase of one step
      const double fraction = span != 0 ? (step - p.first) / span : 1.0;
      if (anneal_strategy == "cos") return half_cosine(p.start, p.end, fraction);
      return (p.end - p.start) * fraction + p.start;
    }
  }
}

double cyclic_lr(double base_lr, double step, double max_lr, double step_size_up,
                 double step_size_down, const std::string& mode, double exp_gamma) {
  SKIFF_CHECK(step_size_up > 0 && step_size_down > 0,
              "cyclic lr: step_size_up and step_size_down must be > 0, got ", step_size_up, " and ",
              step_size_down);
  SKIFF_CHECK(mode == "triangular" || mode == "triangular2" || mode == "exp_range",
              "cyclic lr: mode must be 'triangular', 'triangular2' or 'exp_range', got '", mode,
              "'");
  const double cycle_size = step_size_up + step_size_down;
  const double up_pct = step_size_up / cycle_size;
  const double cycle = 1 + std::floor(step / cycle_size);
  const double position = 1.0 + step / cycle_size - cycle;
  const double height = position <= up_pct ? position / up_pct : (1 - position) / (1 - up_pct);
  double scale = 1.0;
  if (mode == "triangular2") scale = 1 / std::pow(2.0, cycle - 1);
  if (mode == "exp_range") scale = std::pow(exp_gamma, step);
  return base_lr + (max_lr - base_lr) * height * scale;
}

double cosine_warm_restarts_lr(double base_lr, double step, int64_t t_0, int64_t t_mult,
                               double eta_min) {
  SKIFF_CHECK(t_0 > 0 && t_mult > 0, "cosine warm restarts: T_0 and T_mult must be > 0, got ", t_0,
              " and ", t_mult);
  // Skip whole cycles: the one holding `step` starts at `start` and lasts `length` steps.
  double start = 0, length = static_cast<double>(t_0);
  if (t_mult == 1) {
    start = std::floor(step / length) * length;
  } else {
    while (step >= start + length) {
      start += length;
      length *= static_cast<double>(t_mult);
    }
  }
  const double pi = std::acos(-1.0);
  return eta_min + (base_lr - eta_min) * (1 + std::cos(pi * (step - start) / length)) / 2;
}

}  // namespace skiff::kernels
