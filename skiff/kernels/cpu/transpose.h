// Permuting the axes of a tensor (any dtype).
//
//   std::vector<int> perm = transpose_permutation({1, 0}, x.rank());
//   transpose(x, perm, &out);      // [2, 3] -> [3, 2]
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// `axis` checked as a permutation of [0, rank) (negative entries count from the back);
// throws naming the list and the rank otherwise.
std::vector<int> transpose_permutation(const std::vector<int64_t>& axis, int rank);
// The permutation that undoes `perm`.
std::vector<int> inverse_permutation(const std::vector<int>& perm);
// out[i] = x[perm[i]]; -1 dims stay -1.
Shape transposed_shape(const Shape& x, const std::vector<int>& perm);

// out = x with its axes permuted: out's axis i is x's axis perm[i].
void transpose(const Tensor& x, const std::vector<int>& perm, Tensor* out);

}  // namespace skiff::kernels
