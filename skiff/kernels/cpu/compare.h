// Comparisons and logical ops with numpy broadcasting (kernels::broadcast_shape of
// elementwise.h with axis -1); bool results.
//
//   kernels::compare(CompareOp::kLess, i, n, &cond);          // cond = i < n
//   kernels::logical(LogicalOp::kAnd, a, b, &both);
//   kernels::logical_not(cond, &cond);
// One-element operands take a direct path that costs a few nanoseconds (loop
// conditions run one comparison per step).
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class CompareOp { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };
enum class LogicalOp { kAnd, kOr, kXor };

// out = x <op> y elementwise (bool), broadcasting; x and y must have the same dtype.
void compare(CompareOp op, const Tensor& x, const Tensor& y, Tensor* out);
// out = x <op> y on bool tensors, broadcasting.
void logical(LogicalOp op, const Tensor& x, const Tensor& y, Tensor* out);
// out = !x on a bool tensor; `out` may be `x`.
void logical_not(const Tensor& x, Tensor* out);

}  // namespace skiff::kernels
