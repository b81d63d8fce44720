// Appends the parameter updates of an optimizer to a training program: after
// append_backward, one update op (sgd, momentum, adam, adamw, rmsprop, adagrad) per
// (parameter, gradient) pair, preceded by optional global-norm gradient clipping,
// L2 regularization and learning-rate schedule ops, with the optimizer's state
// (learning rate, step counter, velocities, moments, beta powers) declared as
// persistable variables and initialized by the startup program.
//
//   auto param_grads = append_backward(main, "loss");
//   append_optimizer(main, startup, param_grads, {"adam", 1e-3});
//   exe.run(startup, &scope);                 // parameters and optimizer state
//   for (...) exe.run(*prepared_main, &scope);  // forward, backward, update
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

// A learning rate the training program computes itself, every step, from a step
// counter it increments, with the lr_* schedule ops (PaddlePaddle's StepDecay,
// CosineAnnealingDecay, ExponentialDecay, PiecewiseDecay, MultiStepDecay, LinearWarmup).
struct LrSchedule {
  // "constant", "step_decay", "cosine_annealing", "exponential", "piecewise" or
  // "multistep"
  std::string type = "constant";
  int64_t step_size = 1;  // step_decay: lr * gamma^floor(step / step_size)
  double gamma = 0.1;     // also exponential: lr * gamma^step; multistep
  int64_t t_max = 1;      // cosine_annealing: from lr down to eta_min over t_max steps
  double eta_min = 0.0;
  // piecewise: values[i] while step < boundaries[i], then values.back() (one more value
  // than boundaries; the learning rate is not used)
  std::vector<double> boundaries;
  std::vector<double> values;
  std::vector<double> milestones;  // multistep: lr * gamma^(milestones passed)
  // > 0: a linear warmup from warmup_start_lr to warmup_end_lr (default: the learning
  // rate) over this many steps comes first; the schedule starts when it ends.
  int64_t warmup_steps = 0;
  double warmup_start_lr = 0.0;
  std::optional<double> warmup_end_lr;
};

struct RmspropConfig {
  double rho = 0.95;  // decay of the running mean square
  double epsilon = 1e-6;
  double momentum = 0.0;
  bool centered = false;
};

struct AdagradConfig {
  double epsilon = 1e-6;
  double initial_accumulator_value = 0.0;
};

// Which optimizer and its hyper-parameters (PaddlePaddle's defaults and semantics).
struct OptimizerConfig {
  OptimizerConfig() = default;
  // OptimizerConfig{"adam", 1e-3}: the type and learning rate, the rest defaulted.
  OptimizerConfig(std::string type, double learning_rate)
      : type(std::move(type)), learning_rate(learning_rate) {}

  std::string type = "sgd";  // "sgd", "momentum", "adam", "adamw", "rmsprop" or "adagrad"
  double learning_rate = 0.01;
  double momentum = 0.9;  // momentum: velocity decay mu
  bool use_nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam, adamw
  bool lazy_mode = false;  // adam, adamw with sparse gradients: update only their rows
  RmspropConfig rmsprop;
  AdagradConfig adagrad;
  // L2 regularization: coeff * param is added to each gradient (PaddlePaddle's L2Decay
  // regularizer; a sparse gradient becomes dense). For adamw it is the decoupled
  // decay coefficient instead (param *= 1 - lr * weight_decay before each update).
  double weight_decay = 0.0;
  // > 0: before the updates every gradient is scaled by clip / max(global_norm, clip),
  // global_norm the L2 norm of all gradients together (ClipGradByGlobalNorm).
  double clip_global_norm = 0.0;
  LrSchedule lr_schedule;
};

// Declares the learning rate and per-parameter accumulators as persistable variables
// in block 0 of `main` and of `startup` (where fill_constant ops initialize them),
// then appends to block 0 of `main`: the clipping op, the regularization terms, the
// schedule ops (computing the learning rate from the step counter), one in-place
// update op per pair, and the counter's increment. Parameters must be declared in
// `main` with known shapes and a floating dtype; sparse (selected rows) gradients go
// to sgd, adam and adamw (or any optimizer once weight_decay makes them dense).
// Throws skiff::Error for an unknown optimizer or schedule type, bad
// hyper-parameters or undeclared variables.
void append_optimizer(Program& main, Program& startup,
                      const std::vector<std::pair<std::string, std::string>>& param_grads,
                      const OptimizerConfig& config);

}  // namespace skiff
