// Reshaping without copying: the result shares the input's storage.
//
//   Shape s = reshape_shape(x.shape(), {0, -1});   // [2, 3, 4] -> [2, 12]
//   reshape(x, s, &out);
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The shape `spec` asks for from `x`: 0 copies x's dim at the same index, one -1 is
// inferred from the element count. Dims that depend on unknown (-1) dims of x stay -1.
// Throws naming both shapes when the counts cannot match or the spec is malformed.
Shape reshape_shape(const Shape& x, const std::vector<int64_t>& spec);

// out = x viewed with `shape` (same element count), sharing x's storage.
void reshape(const Tensor& x, const Shape& shape, Tensor* out);
// out = x's dims as an int64 vector [rank] (the `shape` op).
void shape_of(const Tensor& x, Tensor* out);

}  // namespace skiff::kernels
