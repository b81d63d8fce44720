// Repeating a tensor: expand (broadcast to a larger shape) and tile (whole copies
// side by side), and their gradients (sums over the copies). Rows that are
// contiguous in the input are moved by memcpy.
//
//   expand(x, expand_shape(x.shape(), {4, -1, 3}), &out);   // [2, 1] -> [4, 2, 3]
//   tile(x, {2, 3}, &out);                                  // [2, 1] -> [4, 3]
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The shape expand gives x for the target `shape`: x aligns with its back; -1 keeps
// x's dim; each x dim must be 1 or the target. -1 dims of x give the target (or -1).
// Throws naming both when they do not match.
Shape expand_shape(const Shape& x, const std::vector<int64_t>& shape);
// out = x broadcast to `out_shape` (known, a valid expand of x's shape); any dtype.
void expand(const Tensor& x, const Shape& out_shape, Tensor* out);
// x_grad (x_shape, float32/float64) = out_grad summed over the dims x was expanded along.
void expand_grad(const Tensor& out_grad, const Shape& x_shape, Tensor* x_grad);

// x's dims times `repeat_times` (each >= 1), the shorter of the two padded with
// leading 1s. -1 dims stay -1. Throws naming both for a repeat below 1 or rank above 8.
Shape tile_shape(const Shape& x, const std::vector<int64_t>& repeat_times);
// out = x repeated repeat_times[i] times along each dim i; any dtype.
void tile(const Tensor& x, const std::vector<int64_t>& repeat_times, Tensor* out);
// x_grad (x_shape, float32/float64) = the sum of out_grad's tiles.
void tile_grad(const Tensor& out_grad, const Shape& x_shape,
               const std::vector<int64_t>& repeat_times, Tensor* x_grad);

}  // namespace skiff::kernels
