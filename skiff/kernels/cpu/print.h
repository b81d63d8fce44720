// Text of a tensor for the `print` op (skiff.static.Print): a header line naming the
// variable, then its shape, dtype and the first `summarize` values.
//
//   PrintOptions o; o.message = "logits";
//   std::cout << format_tensor(t, "fc_0.tmp_0", o);
//   // logits Variable: fc_0.tmp_0
//   //   - shape: [2, 3]
//   //   - dtype: float32
//   //   - data: [0.1 -2 3.5 0 1 7]
#pragma once

#include <cstdint>
#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

struct PrintOptions {
  std::string message;     // printed first
  int64_t summarize = 20;  // number of values shown; -1 for all
  bool print_name = true;
  bool print_type = true;
  bool print_shape = true;
};

// The text block for tensor `t` of variable `name` (ends with a newline).
std::string format_tensor(const Tensor& t, const std::string& name, const PrintOptions& options);

}  // namespace skiff::kernels
