// One-hot encoding of integer labels (PaddlePaddle's one_hot_v2: a new last dim).
//
//   one_hot(labels, /*depth=*/10, /*allow_out_of_range=*/false, DType::kF32, &out);
//   // labels int64 [4] -> out float32 [4, 10]
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// x's shape with `depth` appended (depth >= 1). Throws naming it otherwise.
Shape one_hot_shape(const Shape& x, int64_t depth);
// out[..., k] = 1 where k == x[...], else 0; x int32 or int64, out float32 or float64.
// A label outside [0, depth) throws naming it, or with allow_out_of_range gives a
// row of zeros.
void one_hot(const Tensor& x, int64_t depth, bool allow_out_of_range, DType dtype, Tensor* out);

}  // namespace skiff::kernels
