// Elementwise dtype conversion and in-place increment.
//
//   kernels::cast(x, DType::kF64, &y);      // y = float64(x)
//   kernels::increment(i, 1.0, &i);         // i += 1 (in place)
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = x converted to `to` elementwise (C++ conversion; to bool: x != 0). To bfloat16
// values round to nearest, ties to even, once (float64 too; int64 beyond 2^53 rounds
// twice); from bfloat16 they widen exactly. `out` may be `x` itself.
void cast(const Tensor& x, DType to, Tensor* out);
// x_grad = out_grad cast back to x's dtype (cast's gradient); x must be floating.
void cast_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);
// out = x + step, elementwise, for numeric dtypes; an integer dtype requires an
// integral step. `out` may be `x` itself (the common loop-counter use).
void increment(const Tensor& x, double step, Tensor* out);

}  // namespace skiff::kernels
