// Parameter updates of the optimizers (PaddlePaddle semantics): sgd, momentum, adam
// (and adamw), rmsprop, adagrad; f32 and f64. Every output may be the same tensor as
// its input (the usual in-place update).
//
//   kernels::sgd_update(param, grad, lr, &param);                  // p -= lr * g
//   kernels::momentum_update(p, g, v, lr, {0.9, false}, &p, &v);
//
// The learning rate is a one-element tensor of any floating dtype.
#pragma once

#include <cstdint>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/core/variable.h"

namespace skiff::kernels {

// param_out = param - lr * grad.
void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& lr, Tensor* param_out);

// Sparse SGD: param_out = param, then row rows[i] -= lr * grad_rows[i] (rows may
// repeat; each occurrence is applied, in order). grad_rows is [rows.size(), param row
// size...]. Many rows are split across threads by bands of the parameter's rows.
void sgd_update_rows(const Tensor& param, const std::vector<int64_t>& rows, const Tensor& grad_rows,
                     const Tensor& lr, Tensor* param_out);

struct MomentumOptions {
  double mu = 0.9;
  bool use_nesterov = false;
};

// velocity_out = mu * velocity + grad;
// param_out = param - lr * (grad + mu * velocity_out) with Nesterov, else
// param_out = param - lr * velocity_out.
void momentum_update(const Tensor& param, const Tensor& grad, const Tensor& velocity,
                     const Tensor& lr, const MomentumOptions& opts, Tensor* param_out,
                     Tensor* velocity_out);

struct AdamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  // AdamW's decoupled weight decay: param *= (1 - lr * decay_coeff) before the update.
  double decay_coeff = 0.0;
  // Sparse gradients only: update just the given rows (else every row, as dense).
  bool lazy_mode = false;
  // AMSGrad: the step divides by the running maximum of m2 (state.moment2_max).
  bool amsgrad = false;
};

// Adam with bias correction folded into the step size; beta1_pow / beta2_pow hold
// beta^t for the current step t (one element each, updated to beta^(t+1)):
//   m1 = b1*m1 + (1-b1)*g;  m2 = b2*m2 + (1-b2)*g*g
//   lr_t = lr * sqrt(1 - b2pow) / (1 - b1pow)
//   param -= lr_t * m1 / (sqrt(m2) + eps * sqrt(1 - b2pow))
// With opts.decay_coeff (AdamW) param is first scaled by (1 - lr * decay_coeff). With
// opts.amsgrad, m2max = max(m2max, m2) and the step divides by sqrt(m2max) instead.
struct AdamState {
  const Tensor* moment1;
  const Tensor* moment2;
  const Tensor* beta1_pow;
  const Tensor* beta2_pow;
  const Tensor* moment2_max = nullptr;  // amsgrad only
};
struct AdamOutputs {
  Tensor* param;
  Tensor* moment1;
  Tensor* moment2;
  Tensor* beta1_pow;              // may be nullptr: the power is not advanced
  Tensor* beta2_pow;              // may be nullptr
  Tensor* moment2_max = nullptr;  // amsgrad only
};
void adam_update(const Tensor& param, const Tensor& grad, const AdamState& state, const Tensor& lr,
                 const AdamOptions& opts, const AdamOutputs& out);

// Adam with a sparse gradient (rows in any order; repeated rows are summed first).
// Without lazy_mode (PaddlePaddle's default) every row is updated as adam_update does
// with a gradient that is zero outside the given rows, so the result equals the dense
// update's; with lazy_mode only the given rows of the parameter and moments change.
// The beta powers advance either way.
void adam_update_rows(const Tensor& param, const SelectedRows& grad, const AdamState& state,
                      const Tensor& lr, const AdamOptions& opts, const AdamOutputs& out);

struct RmspropOptions {
  double decay = 0.95;  // rho: decay of the mean square (and mean gradient)
  double epsilon = 1e-6;
  double momentum = 0.0;
  bool centered = false;  // subtract the squared mean gradient from the mean square
};
struct RmspropState {
  const Tensor* mean_square;
  const Tensor* moment;
  const Tensor* mean_grad;  // centered only (else may be nullptr)
};
struct RmspropOutputs {
  Tensor* param;
  Tensor* mean_square;
  Tensor* moment;
  Tensor* mean_grad;  // centered only
};
// RMSProp (PaddlePaddle's rmsprop):
//   ms = decay*ms + (1-decay)*g*g;  centered: mg = decay*mg + (1-decay)*g
//   mom = momentum*mom + lr*g / sqrt(ms - mg*mg + eps)  (without centering: ms + eps)
//   param -= mom
void rmsprop_update(const Tensor& param, const Tensor& grad, const RmspropState& state,
                    const Tensor& lr, const RmspropOptions& opts, const RmspropOutputs& out);

// Adagrad (PaddlePaddle's adagrad): moment += g*g; param -= lr*g / (sqrt(moment) + eps).
void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& moment, const Tensor& lr,
                    double epsilon, Tensor* param_out, Tensor* moment_out);

}  // namespace skiff::kernels
