// Turns the fake-quantized compute of a converted (int8) model into int8 compute:
//
//   xf = fake_quantize_dequantize(x, s_x)           xq = quantize_linear(x, s_x)      (int8)
//   wf = dequantize_linear(w_int8, s_w)        ->   out = quantized_matmul(xq, w_int8, s_x,
//   y  = matmul(xf, wf)                                       s_w, Bias=b, fuse_relu)
//   [z = elementwise_add(y, b)] [out = relu(z)]
//
// for the int8 grid (quant range [-128, 127], per-tensor s_x, no zero points, ties to
// even) and w_int8 [K, N] with one scale or one per column. What does not match stays as
// it was (computed in float on int8-rounded values) and is reported. The int8 ops have no
// gradient: the variables they read are marked stop_gradient (an inference program).
//
//   Int8Report report;
//   Program fast = convert_to_int8(program, &report);
#pragma once

#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

struct Int8Report {
  int converted = 0;                    // matmuls now computed in int8
  std::vector<std::string> left_float;  // "op 'conv2d' (at model.py:12): why", one per op
};

// Rewrites every block as above. Intermediates are assumed not to be fetched (a pass does
// not see the fetch list); each must be read by its one consumer only.
Program convert_to_int8(const Program& program, Int8Report* report);

}  // namespace skiff
