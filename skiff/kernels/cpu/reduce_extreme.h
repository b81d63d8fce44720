// Max, min and product over a set of axes (float32, float64, int32, int64), and their
// gradients (float32, float64). Axes are a bit mask from reduce_axes() in reduce.h.
//
//   uint32_t axes = reduce_axes(x.rank(), {1}, /*reduce_all=*/false);
//   reduce_extreme(Extreme::kMax, x, axes, /*keep_dim=*/false, &out);   // [2, 3] -> [2]
//   reduce_extreme_grad(x, out, out_grad, axes, &x_grad);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class Extreme { kMax, kMin };

// out = the max (or min) of x over `axes`; NaN wins over any number. Throws when a
// non-empty output would reduce zero elements (there is no max of nothing).
void reduce_extreme(Extreme kind, const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out);
// x_grad = out_grad routed to the elements equal to their output (a NaN output to its
// NaN elements), split equally among ties, so each output's gradient is kept whole.
// `out` and `out_grad` may keep the reduced dims as 1 or drop them.
void reduce_extreme_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, uint32_t axes,
                         Tensor* x_grad);

// out = the product of x over `axes` (1 for nothing); integer products wrap on overflow.
void reduce_prod(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out);
// x_grad = out_grad * the product of the other elements of its group, exact with zeros
// (one zero: only it gets a gradient; two or more: none does).
void reduce_prod_grad(const Tensor& x, const Tensor& out_grad, uint32_t axes, Tensor* x_grad);

}  // namespace skiff::kernels
