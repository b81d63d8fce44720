// Selection by value along one axis: argmax / argmin (the index of the extreme) and
// top_k (the k largest or smallest values with their indices), and top_k's gradient.
// Values are float32, float64, int32 or int64; indices int64; ties go to the lower
// index. top_k ranks NaN above every number; argmax and argmin both pick the first NaN
// (as reduce_max and reduce_min return NaN).
//
//   arg_extreme(x, /*largest=*/true, /*axis=*/-1, /*keepdims=*/false, /*flatten=*/false, &idx);
//   top_k(x, /*k=*/3, /*axis=*/-1, /*largest=*/true, /*sorted=*/true, &values, &indices);
//   top_k_grad(indices, values_grad, x.shape(), -1, &x_grad);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The shape of argmax/argmin's output for input shape `x` (-1 dims stay -1): x without
// `axis` (or with it as 1 when keepdims); with flatten, rank 0 (or all 1s when keepdims).
// Errors name `op`.
Shape arg_extreme_shape(const char* op, const Shape& x, int64_t axis, bool keepdims, bool flatten);
// out (int64) = the index along `axis` (of the flattened x when flatten) of the first
// largest (or smallest) element. Throws for an empty axis.
void arg_extreme(const Tensor& x, bool largest, int64_t axis, bool keepdims, bool flatten,
                 Tensor* out);

// The shape of top_k's outputs: x with dim `axis` set to k; throws when k is negative or
// exceeds a known dim.
Shape top_k_shape(const Shape& x, int64_t k, int64_t axis);
// values, indices (int64) = the k largest (or smallest) elements along `axis`, in
// descending (ascending) order when sorted, else in the order of their indices.
void top_k(const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted, Tensor* values,
           Tensor* indices);
// x_grad (shape x_shape, zero elsewhere) = values_grad scattered to `indices` along `axis`.
// Throws for an index outside the axis.
void top_k_grad(const Tensor& indices, const Tensor& values_grad, const Shape& x_shape,
                int64_t axis, Tensor* x_grad);

}  // namespace skiff::kernels
