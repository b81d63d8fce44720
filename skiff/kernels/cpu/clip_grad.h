// Gradient clipping by global norm (PaddlePaddle's ClipGradByGlobalNorm): every
// gradient is scaled by clip_norm / max(global_norm, clip_norm), where global_norm is
// the L2 norm of all gradients together.
//
//   double sq = kernels::squared_l2_norm(g1) + kernels::squared_l2_norm(g2);
//   double s = kernels::global_norm_scale(sq, /*clip_norm=*/1.0);
//   kernels::scale_gradient(g1, s, &g1);
//   kernels::clip_by_global_norm({{&g1, &g1}, {&g2, &g2}}, 1.0, nullptr);   // the same
#pragma once

#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/core/variable.h"

namespace skiff::kernels {

// The sum of squares of x's elements (float32/float64), accumulated in double.
double squared_l2_norm(const Tensor& x);
// The same for the dense tensor that selected rows stand for (repeated rows summed
// first).
double squared_l2_norm(const SelectedRows& x);
// out = [that sum] (shape [1]) in x's dtype (of x.value for selected rows): the
// squared_l2_norm op.
void squared_l2_norm(const Tensor& x, Tensor* out);
void squared_l2_norm(const SelectedRows& x, Tensor* out);

// clip_norm / max(sqrt(squared_norm), clip_norm): 1 when the norm is within clip_norm.
double global_norm_scale(double squared_norm, double clip_norm);

// out = x * scale (out may be x).
void scale_gradient(const Tensor& x, double scale, Tensor* out);
// out = x with its values scaled (same rows; out may be x).
void scale_gradient(const SelectedRows& x, double scale, SelectedRows* out);

// One gradient that clip_by_global_norm scales: a dense tensor (`tensor`, written to
// `tensor_out`) or selected rows (`rows`, written to `rows_out`); an output may be its
// input, or nullptr (the gradient then counts in the norm but is not written). A dense
// gradient without a value counts as zero and is left alone.
struct ClippedGradient {
  const Tensor* tensor = nullptr;
  Tensor* tensor_out = nullptr;
  const SelectedRows* rows = nullptr;
  SelectedRows* rows_out = nullptr;
};

// Scales every gradient by global_norm_scale(the sum of their squared norms, clip_norm)
// and writes that global norm to `global_norm` (when not nullptr) as a [1] tensor of
// the first gradient's dtype (float32 when it has no value).
void clip_by_global_norm(const std::vector<ClippedGradient>& grads, double clip_norm,
                         Tensor* global_norm);

// x_grad = 2 * x * out_grad (out_grad has one element): the gradient of squared_l2_norm.
void squared_l2_norm_grad(const Tensor& x, const Tensor& out_grad, Tensor* x_grad);

}  // namespace skiff::kernels
