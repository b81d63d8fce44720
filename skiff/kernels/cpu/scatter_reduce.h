// scatter_reduce: updates combined into elements of x at flat positions, by sum, prod,
// mean, amax or amin, with x's own value taking part or not (Paddle's put_along_axis and
// scatter_reduce with `reduce`; the callers turn their indices into flat positions).
//
//   scatter_reduce(x, positions, updates, "amax", /*include_self=*/true, &out);
#pragma once

#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Checks the reduction's name ("sum", "prod", "mean", "amax", "amin") for `op`.
void check_scatter_reduction(const char* op, const std::string& reduce);

// out = x, then each updates[k] combined into out's element positions[k] (int32/int64,
// in [0, x.numel())). include_self=false: an element some update reaches starts from its
// first update instead of x's value. mean divides by the count of values combined
// (integers truncate). float32, float64, int32, int64.
void scatter_reduce(const Tensor& x, const Tensor& positions, const Tensor& updates,
                    const std::string& reduce, bool include_self, Tensor* out);

// The gradients of scatter_reduce (float32/float64) from the forward's operands and
// result; amax/amin split an element's gradient evenly among the values equal to its
// result. Either output may be null.
void scatter_reduce_grad(const Tensor& x, const Tensor& positions, const Tensor& updates,
                         const Tensor& out, const Tensor& out_grad, const std::string& reduce,
                         bool include_self, Tensor* x_grad, Tensor* updates_grad);

}  // namespace skiff::kernels
