// Finite-difference gradient check of a whole program (loops and branches included):
// append_backward's gradients of `loss` with respect to the parameters vs central
// differences of the forward program, in float64.
//
//   Program p; BlockBuilder b(&p);  ... build, declaring "w" persistable ...
//   check_program_grad(p, "loss", {{"w", w0}}, {{"x", x0}});
#pragma once

#include <map>
#include <string>

#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"

namespace skiff::testing {

// `params` are persistable float64 variables set in the scope before each run;
// `feeds` are fed. Fails the current gtest with the first mismatching element.
void check_program_grad(const Program& forward, const std::string& loss,
                        const std::map<std::string, Tensor>& params,
                        const std::map<std::string, Tensor>& feeds = {}, double eps = 1e-6,
                        double atol = 1e-6, double rtol = 1e-6);

}  // namespace skiff::testing
