// Parameter updates of the adaptive optimizers with per-step state (PaddlePaddle's adamax,
// adadelta, nadam, radam and lamb; the core ones are in optimizer.h); f32 and f64. Every
// output may be the same tensor as its input (the usual in-place update).
//
//   kernels::adadelta_update(p, g, avg_sq_grad, avg_sq_update, lr, {0.95, 1e-6},
//                            {&p, &avg_sq_grad, &avg_sq_update});
//
// The learning rate is a one-element tensor of any floating dtype. A step counter or
// power ("Beta1Pow", "Rho", ...) is a floating tensor of any shape whose elements all
// hold the same value (PaddlePaddle keeps some shaped like the parameter): its first
// element is read and every element of its output is written.
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

struct AdamaxOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};
struct AdamaxState {
  const Tensor* moment;
  const Tensor* inf_norm;
  const Tensor* beta1_pow;  // beta1^t for the current step t
};
struct AdamaxOutputs {
  Tensor* param;
  Tensor* moment;
  Tensor* inf_norm;
  Tensor* beta1_pow = nullptr;  // may be nullptr: the power is not advanced
};
// Adamax (PaddlePaddle's adamax):
//   m = b1*m + (1-b1)*g;  u = max(|g|, b2*u + eps)
//   param -= lr / (1 - beta1_pow) * m / u;  beta1_pow *= b1 (when out.beta1_pow is given)
void adamax_update(const Tensor& param, const Tensor& grad, const AdamaxState& state,
                   const Tensor& lr, const AdamaxOptions& opts, const AdamaxOutputs& out);

struct AdadeltaOptions {
  double rho = 0.95;
  double epsilon = 1e-6;
};
struct AdadeltaOutputs {
  Tensor* param;
  Tensor* avg_squared_grad;
  Tensor* avg_squared_update;
};
// Adadelta (PaddlePaddle's adadelta; the learning rate scales the step only):
//   Eg = rho*Eg + (1-rho)*g^2;  d = -sqrt(Edx + eps) / sqrt(Eg + eps) * g
//   param += lr * d;  Edx = rho*Edx + (1-rho)*d^2
void adadelta_update(const Tensor& param, const Tensor& grad, const Tensor& avg_squared_grad,
                     const Tensor& avg_squared_update, const Tensor& lr,
                     const AdadeltaOptions& opts, const AdadeltaOutputs& out);

struct NadamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  double momentum_decay = 0.004;  // psi
};
// NAdam's state; the first three are per-step values (see the top of this file).
struct NadamState {
  const Tensor* momentum_decay_pow;  // 0.96^(t-1) (1 at the start)
  const Tensor* beta2_pow;           // beta2^(t-1) (1 at the start)
  const Tensor* mu_product;          // mu_1 * ... * mu_(t-1) (1 at the start)
  const Tensor* moment1;
  const Tensor* moment2;
};
struct NadamOutputs {
  Tensor* param;
  Tensor* momentum_decay_pow;
  Tensor* beta2_pow;
  Tensor* mu_product;
  Tensor* moment1;
  Tensor* moment2;
};
// NAdam (PaddlePaddle's nadam), with d = 0.96^t, mu_t = b1*(1 - d^psi/2),
// mu_(t+1) = b1*(1 - (0.96*d)^psi/2), P = mu_1*...*mu_t:
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2
//   m_hat = mu_(t+1)*m / (1 - P*mu_(t+1)) + (1-mu_t)*g / (1 - P)
//   param -= lr * m_hat / (sqrt(v / (1 - b2^t)) + eps)
void nadam_update(const Tensor& param, const Tensor& grad, const NadamState& state,
                  const Tensor& lr, const NadamOptions& opts, const NadamOutputs& out);

struct RadamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};
// RAdam's state; the first three are per-step values (see the top of this file).
struct RadamState {
  const Tensor* beta1_pow;  // beta1^(t-1) (1 at the start)
  const Tensor* beta2_pow;  // beta2^(t-1) (1 at the start)
  const Tensor* rho;        // (t-1)*b2^(t-1) / (1 - b2^(t-1)) (any value at the start)
  const Tensor* moment1;
  const Tensor* moment2;
};
struct RadamOutputs {
  Tensor* param;
  Tensor* beta1_pow;
  Tensor* beta2_pow;
  Tensor* rho;
  Tensor* moment1;
  Tensor* moment2;
};
// RAdam (PaddlePaddle's radam): rho_inf = 2/(1-b2) - 1, rho_t = rho_inf - 2*t*b2^t/(1-b2^t);
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2;  m_hat = m / (1 - b1^t)
//   rho_t > 5: param -= lr * m_hat * r_t * sqrt(1 - b2^t) / (sqrt(v) + eps), with
//              r_t = sqrt((rho_t-4)(rho_t-2)rho_inf / ((rho_inf-4)(rho_inf-2)rho_t))
//   else:      param -= lr * m_hat
void radam_update(const Tensor& param, const Tensor& grad, const RadamState& state,
                  const Tensor& lr, const RadamOptions& opts, const RadamOutputs& out);

struct LambOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-6;
  double weight_decay = 0.01;
  bool always_adapt = false;  // apply the trust ratio even without weight decay
};
struct LambState {
  const Tensor* moment1;
  const Tensor* moment2;
  const Tensor* beta1_pow;  // beta1^t for the current step t
  const Tensor* beta2_pow;  // beta2^t
};
struct LambOutputs {
  Tensor* param;
  Tensor* moment1;
  Tensor* moment2;
  Tensor* beta1_pow;  // may be nullptr: the power is not advanced
  Tensor* beta2_pow;  // may be nullptr
};
// LAMB (PaddlePaddle's lamb):
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2
//   r = (m / (1-b1pow)) / (sqrt(v / (1-b2pow)) + eps) + weight_decay * param
//   ratio = |param| / |r| when weight_decay > 0 or always_adapt and both norms are
//           positive, else 1;  param -= lr * ratio * r;  the powers advance by the betas
void lamb_update(const Tensor& param, const Tensor& grad, const LambState& state, const Tensor& lr,
                 const LambOptions& opts, const LambOutputs& out);

}  // namespace skiff::kernels
