// Program-level automatic differentiation. append_backward appends to block 0 the
// grad ops of every op between the parameters and the target, made by each op's grad
// maker; gradients reaching a variable from several ops are summed; `while` and
// `conditional_block` get grad ops whose grad blocks run over their kept step scopes.
//
//   auto param_grads = append_backward(program, "loss");
//   // program now computes w@GRAD for every trainable parameter w
//   append_optimizer(program, startup, param_grads, {"adam", 1e-3});
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

struct BackwardOptions {
  // Variables to differentiate with respect to; empty means every persistable,
  // floating, non-stop_gradient dense variable of block 0.
  std::vector<std::string> parameters;
  // Variables through which no gradient flows.
  std::set<std::string> no_grad;
  // When true the caller feeds target@GRAD (a vector-Jacobian product); otherwise
  // it is filled with ones.
  bool feed_target_grad = false;
};

// Appends the backward of `target` to block 0 and returns (parameter, gradient) for
// each parameter the target depends on. Throws skiff::Error naming the op when a
// non-differentiable op lies on a path from a parameter to the target.
std::vector<std::pair<std::string, std::string>> append_backward(
    Program& program, const std::string& target, const BackwardOptions& options = {});

}  // namespace skiff
