// Learning-rate schedules that rise and fall, at a step, in the closed forms of
// PaddlePaddle's LinearLR, OneCycleLR, CyclicLR and CosineAnnealingWarmRestarts
// (paddle.optimizer.lr). The step is a double, as in lr_schedule.h.
//
//   double lr = kernels::cyclic_lr(0.1, /*step=*/3, 1.0, 2, 2, "triangular", 1.0);  // 0.55
#pragma once

#include <cstdint>
#include <string>

#include "skiff/kernels/cpu/lr_schedule.h"

namespace skiff::kernels {

// base_lr * (start_factor + (end_factor - start_factor) * min(step, total_steps) /
// total_steps); total_steps > 0.
double linear_lr(double base_lr, double step, int64_t total_steps, double start_factor,
                 double end_factor);

// One cycle over total_steps: from max_lr / divide_factor up to max_lr over
// phase_pct * total_steps steps, then down to end_lr (three_phase: down to the initial
// rate first, then to end_lr), annealed by a half cosine ("cos") or linearly ("linear").
// Throws past total_steps.
double one_cycle_lr(double step, int64_t total_steps, double max_lr, double divide_factor,
                    double end_lr, double phase_pct, const std::string& anneal_strategy,
                    bool three_phase);

// Triangular cycles between base_lr and max_lr (step_size_up steps up, step_size_down
// down); the height scaled by 1 ("triangular"), 1 / 2^(cycle - 1) ("triangular2") or
// exp_gamma^step ("exp_range").
double cyclic_lr(double base_lr, double step, double max_lr, double step_size_up,
                 double step_size_down, const std::string& mode, double exp_gamma);

// Cosine annealing from base_lr to eta_min over T_i steps, restarting at base_lr; the
// first cycle has t_0 steps and each next one t_mult times as many.
double cosine_warm_restarts_lr(double base_lr, double step, int64_t t_0, int64_t t_mult,
                               double eta_min);

}  // namespace skiff::kernels
