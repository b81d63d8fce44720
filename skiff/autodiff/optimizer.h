// Appends the parameter updates of an optimizer to a training program: after
// append_backward, one sgd / momentum / adam op per (parameter, gradient) pair, with
// the optimizer's state (learning rate, velocities, moments, beta powers) declared
// as persistable variables and initialized by the startup program.
//
//   auto param_grads = append_backward(main, "loss");
//   append_optimizer(main, startup, param_grads, {"adam", 1e-3});
//   exe.run(startup, &scope);                 // parameters and optimizer state
//   for (...) exe.run(*prepared_main, &scope);  // forward, backward, update
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

// Which optimizer and its hyper-parameters (PaddlePaddle's defaults and semantics).
struct OptimizerConfig {
  std::string type = "sgd";  // "sgd", "momentum" or "adam"
  double learning_rate = 0.01;
  double momentum = 0.9;  // momentum: velocity decay mu
  bool use_nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // adam
};

// Declares the learning rate and per-parameter accumulators as persistable variables
// in block 0 of `main` and of `startup` (where fill_constant ops initialize them),
// then appends one in-place update op per pair to block 0 of `main`. Parameters must
// be declared in `main` with known shapes and a floating dtype. Throws skiff::Error
// for an unknown optimizer type, bad hyper-parameters or undeclared variables.
void append_optimizer(Program& main, Program& startup,
                      const std::vector<std::pair<std::string, std::string>>& param_grads,
                      const OptimizerConfig& config);

}  // namespace skiff
