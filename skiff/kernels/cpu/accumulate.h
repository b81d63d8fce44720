// Gradient accumulation: acc += src, elementwise, same shape and dtype.
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// acc += src; shapes and dtypes must match (floating or integer dtypes; bfloat16 sums in
// float32, rounded once).
void add_inplace(const Tensor& src, Tensor* acc);

}  // namespace skiff::kernels
