// Distinct values or slices of a tensor: unique (sorted) and unique_consecutive (runs of
// equal neighbours), with where each came from, where each input went and how many there
// were. Output lengths are known only after the run.
//
//   unique(x, /*flatten=*/true, 0, DType::kI64, &out, &first, &inverse, &counts);
//   // x = [2, 3, 3, 1] -> out [1, 2, 3], first [3, 0, 1], inverse [1, 2, 2, 0], counts [1, 1, 2]
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = the distinct elements of x (flatten: 1-D) or distinct slices along `axis` (x with
// that dim set to their number), in ascending (lexicographic for slices) order; NaNs are
// each distinct and sort last. The optional outputs (nullptr: skipped), of `index_dtype`
// (int32 or int64): indices = the first position of each in x, inverse = the position in
// out of each element (flatten: 1-D over x's numel) or slice, counts = how often each
// occurs. float32, float64, int32, int64.
void unique(const Tensor& x, bool flatten, int64_t axis, DType index_dtype, Tensor* out,
            Tensor* indices, Tensor* inverse, Tensor* counts);

// As unique, but merges only runs of equal neighbours and keeps x's order.
void unique_consecutive(const Tensor& x, bool flatten, int64_t axis, DType index_dtype, Tensor* out,
                        Tensor* inverse, Tensor* counts);

}  // namespace skiff::kernels
