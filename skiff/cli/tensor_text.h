// Tensors as text for the command line: the type, then the values nested by
// dimension like numpy prints them ("float32[2, 2]\n[[1, 2],\n [3, 4]]").
#pragma once

#include <string>

#include "skiff/core/tensor.h"

namespace skiff::cli {

// The type and values of `t`; past `max_values` elements only the first ones are
// shown, flat, with a note on how many there are.
std::string tensor_to_text(const Tensor& t, int64_t max_values = 1000);

}  // namespace skiff::cli
