// Elementwise selection between two tensors by a boolean condition, with numpy
// broadcasting of all three operands, and its gradient.
//
//   where(cond, x, y, &out);   // cond bool [4, 1], x [4, 3], y [3] -> out [4, 3]
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The broadcast shape of condition, x and y (-1 where unknown). Throws naming the
// shapes when they do not broadcast.
Shape where_shape(const Shape& condition, const Shape& x, const Shape& y);
// out = condition ? x : y elementwise (condition bool; x and y one dtype, any).
void where(const Tensor& condition, const Tensor& x, const Tensor& y, Tensor* out);
// x_grad (x_shape) = out_grad where condition holds, else 0, summed over the dims x
// was broadcast along; y_grad (y_shape) likewise where it does not. float32/float64;
// a null output is skipped.
void where_grad(const Tensor& condition, const Tensor& out_grad, const Shape& x_shape,
                const Shape& y_shape, Tensor* x_grad, Tensor* y_grad);

}  // namespace skiff::kernels
