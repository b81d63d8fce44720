// The coordinates of a tensor's nonzero (true) elements, row-major order: the kernel
// behind nonzero(x), x[mask] and masked_select.
//
//   kernels::where_index(mask, &out);   // mask [2, 3] with 4 trues -> out int64 [4, 2]
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = int64 [n, rank(x)]: one row of coordinates per nonzero element of x (any dtype
// but bfloat16), in row-major order.
void where_index(const Tensor& x, Tensor* out);

}  // namespace skiff::kernels
