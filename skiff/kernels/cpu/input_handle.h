// Kernels whose output may be one of their inputs (an op that writes a variable it
// reads) hold such inputs through handles: a handle shares the input's storage, so
// resizing the output gives the output new storage and leaves the input readable.
//
//   const Tensor src = input_handle(x);
//   out->resize(new_shape, src.dtype());   // out may be &x: src still holds x's data
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// A tensor sharing t's storage (no data is copied).
inline Tensor input_handle(const Tensor& t) { return t; }

}  // namespace skiff::kernels
