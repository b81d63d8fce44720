// Elementwise activations and their gradients (f32, f64), vectorised with Eigen
// array expressions; split across threads only for large tensors; and softshrink.
//
//   kernels::activation(kernels::Activation::kTanh, x, &out);          // out = tanh(x)
//   kernels::activation_grad(kernels::Activation::kTanh, out, dout, &dx);
//   kernels::ActivationParams leaky;
//   leaky.alpha = 0.1;
//   kernels::activation(kernels::Activation::kLeakyRelu, x, &out, leaky);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class Activation {
  kRelu,
  kTanh,
  kSigmoid,
  kExp,
  kLog,
  kGelu,       // x * Phi(x) (erf form), or the tanh approximation when `approximate`
  kLeakyRelu,  // x > 0 ? x : alpha * x
  kElu,        // x > 0 ? x : alpha * (exp(x) - 1)
  kSilu,       // x * sigmoid(x)
  kSoftplus,   // beta * x > threshold ? x : log(1 + exp(beta * x)) / beta
  kSqrt,
  kRsqrt,  // 1 / sqrt(x)
  kPow,    // x ^ factor
};

// The scalar parameters of the parameterised activations; the others ignore them.
struct ActivationParams {
  double alpha = 0.02;       // leaky_relu: slope below 0; elu: scale of exp(x) - 1
  double beta = 1;           // softplus
  double threshold = 20;     // softplus: where beta * x > threshold, Out = X
  double factor = 1;         // pow
  bool approximate = false;  // gelu: the tanh form instead of erf
};

// "relu", "tanh", "sigmoid", "exp", "log", "gelu", "leaky_relu", "elu", "silu",
// "softplus", "sqrt", "rsqrt", "pow".
const char* activation_name(Activation kind);

// True when the gradient is computed from the forward input X; otherwise it is
// computed from the forward output Out (relu, tanh, sigmoid, exp, sqrt, rsqrt).
bool activation_grad_reads_input(Activation kind);

// out[i] = f(x[i]) for i < n on this thread, no checks: activation()'s loop, for kernels that
// apply an activation to values they have just computed (while in cache). out may be x.
void activation_values(Activation kind, const float* x, float* out, int64_t n,
                       const ActivationParams& params = {});
void activation_values(Activation kind, const double* x, double* out, int64_t n,
                       const ActivationParams& params = {});

// out = f(x) elementwise; out takes x's shape and dtype and may be x itself. float32 and
// float64; relu also bfloat16 (on the bits: exact).
void activation(Activation kind, const Tensor& x, Tensor* out, const ActivationParams& params = {});

// dx = dout * f'(.) elementwise, where `saved` is the forward output Out, or the
// forward input X when activation_grad_reads_input(kind). Shapes must match. float32 and
// float64; relu also bfloat16.
void activation_grad(Activation kind, const Tensor& saved, const Tensor& dout, Tensor* dx,
                     const ActivationParams& params = {});

// out = x - t where x > t, x + t where x < -t, 0 between (t = threshold >= 0); float32,
// float64.
void softshrink(const Tensor& x, double threshold, Tensor* out);
// dx = dout where |x| > t, 0 elsewhere.
void softshrink_grad(const Tensor& x, const Tensor& dout, double threshold, Tensor* dx);

}  // namespace skiff::kernels
