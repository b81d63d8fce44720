// Running sums along an axis (cumsum) and evenly spaced values (arange).
//
//   cumsum(x, /*axis=*/-1, /*exclusive=*/false, /*reverse=*/false, &out);  // [1, 2, 3] -> [1, 3,
//   6] arange(0, 1, 0.25, DType::kF32, &out);                               // [0, 0.25, 0.5, 0.75]
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out[i] = x[0] + ... + x[i] along `axis` (negative counts from the back); exclusive
// leaves out x[i] itself, reverse sums from the end instead. float32, float64, int32,
// int64; `out` may be x.
void cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse, Tensor* out);

// The number of values of arange(start, end, step): ceil((end - start) / step), or 0
// when step points away from end. Throws for a zero or non-finite step or bounds.
int64_t arange_length(double start, double end, double step);
// out = [start, start + step, ...] stopping before `end`, 1-D of `dtype` (numeric);
// integer dtypes require integral start, end and step (throws naming them otherwise).
void arange(double start, double end, double step, DType dtype, Tensor* out);

}  // namespace skiff::kernels
