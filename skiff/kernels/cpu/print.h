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

// Which runs of a print op print: with first_n >= 0, only the first first_n runs in this
// process of the ops sharing print_id (forward and gradient counted apart).
struct PrintLimit {
  int64_t first_n = -1;
  int64_t print_id = 0;
  bool gradient = false;
};

// The print op: writes t's text block to standard output at once (flushed, so it
// interleaves with a host's own output) when `show` and within `limit`; out = t (shared
// storage; out may be null).
void print_tensor(const Tensor& t, const std::string& name, const PrintOptions& options, bool show,
                  const PrintLimit& limit, Tensor* out);

// The assert op: throws skiff::Error with `message` and cond's text block unless every
// element of `cond` (bool) is true.
void assert_all(const Tensor& cond, const std::string& name, const std::string& message);

}  // namespace skiff::kernels
