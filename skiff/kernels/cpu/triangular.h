// The lower or upper triangle of the matrices in a tensor's last two dims (PaddlePaddle's
// tril_triu): the gradient of the op is the same op applied to the output gradient.
//
//   kernels::triangle(x, /*diagonal=*/0, /*lower=*/true, &out);    // tril(x)
//   kernels::triangle(x, 1, false, &out);                           // triu(x, 1)
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = x with every element (i, j) of each matrix zeroed unless j - i <= diagonal
// (lower) or j - i >= diagonal (upper); x has rank >= 2, any dtype but bfloat16.
// `out` may be x.
void triangle(const Tensor& x, int64_t diagonal, bool lower, Tensor* out);

}  // namespace skiff::kernels
