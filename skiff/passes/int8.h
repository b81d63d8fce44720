// Turns the fake-quantized compute of a converted (int8) model into int8 compute:
//
//   xf = fake_quantize_dequantize(x, s_x)           xq = quantize_linear(x, s_x)      (int8)
//   wf = dequantize_linear(w_int8, s_w)        ->   out = quantized_matmul(xq, w_int8, s_x,
//   y  = matmul(xf, wf)                                       s_w, Bias=b, fuse_relu)
//   [z = elementwise_add(y, b)] [out = relu(z)]
//
// and alike conv2d(xf, wf, Bias) [relu] -> quantized_conv2d, for the int8 grid (quant range
// [-128, 127], per-tensor s_x, no zero points, ties to even) and int8 weights with one scale
// or one per output channel (a matmul's [K, N] per column, a conv's [M, C, KH, KW] per M).
// Then an int8 op whose float result is read only by the next layer's quantize_linear
// requantizes itself (OutScale): int8 flows from layer to layer; a 2x2 max pooling right
// after such a convolution is folded into it (fuse_max_pool_2x2), and a pooling's argmax
// Mask nothing reads is dropped. What does not match stays
// as it was (computed in float on int8-rounded values) and is reported. The int8 ops have
// no gradient: the variables they read are marked stop_gradient (an inference program).
//
//   Int8Report report;
//   Program fast = convert_to_int8(program, &report);
#pragma once

#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

struct Int8Report {
  int converted = 0;                    // matmuls and convolutions now computed in int8
  int requantized = 0;                  // of them, those giving int8 to the next int8 layer
  std::vector<std::string> left_float;  // "op 'fake_quantize_dequantize' (at model.py:12) of
                                        // 'x': why", one per op
};

// Rewrites every block as above. Intermediates must be read by their one consumer only (a
// variable fetched by the program's fetch_names, or read twice, stays).
Program convert_to_int8(const Program& program, Int8Report* report);

}  // namespace skiff
