// Sums and means over a set of axes, and their gradients (broadcasting back).
//
//   uint32_t axes = reduce_axes(x.rank(), {-1}, /*reduce_all=*/false);  // the last axis
//   reduce_sum(x, axes, /*keep_dim=*/false, &out);   // [2, 3] -> [2]
//   reduce_sum_grad(out_grad, x.shape(), axes, &x_grad);
//
// Axes are a bit mask (bit i set: axis i is reduced); rank is at most 8.
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The axes `dims` name in a rank-`rank` tensor (negative dims count from the back); empty
// `dims` or reduce_all select every axis. Throws for an out-of-range or repeated dim.
uint32_t reduce_axes(int rank, const std::vector<int64_t>& dims, bool reduce_all);

// `x` without the reduced axes (or with them set to 1 when keep_dim). Reducing every
// axis without keep_dim gives a rank-0 shape. -1 dims stay -1.
Shape reduced_shape(const Shape& x, uint32_t axes, bool keep_dim);

// out = sum of x over `axes`; float32, float64, int32, int64 (integers sum exactly in
// their own type).
void reduce_sum(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out);
// out = mean of x over `axes`; float32 or float64 (the mean of nothing is NaN).
void reduce_mean(const Tensor& x, uint32_t axes, bool keep_dim, Tensor* out);

// x_grad (shape x_shape) = out_grad broadcast back along `axes`; out_grad may keep the
// reduced dims as 1 or drop them.
void reduce_sum_grad(const Tensor& out_grad, const Shape& x_shape, uint32_t axes, Tensor* x_grad);
// The same divided by the number of reduced elements.
void reduce_mean_grad(const Tensor& out_grad, const Shape& x_shape, uint32_t axes, Tensor* x_grad);

}  // namespace skiff::kernels
