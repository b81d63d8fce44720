// Elementwise activations and their gradients (f32, f64), vectorised with Eigen
// array expressions; split across threads only for large tensors.
//
//   kernels::activation(kernels::Activation::kTanh, x, &out);          // out = tanh(x)
//   kernels::activation_grad(kernels::Activation::kTanh, out, dout, &dx);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

enum class Activation { kRelu, kTanh, kSigmoid, kExp, kLog };

// "relu", "tanh", "sigmoid", "exp", "log".
const char* activation_name(Activation kind);

// True when the gradient is computed from the forward input X (log); otherwise it is
// computed from the forward output Out.
inline bool activation_grad_reads_input(Activation kind) { return kind == Activation::kLog; }

// out = f(x) elementwise; out takes x's shape and dtype and may be x itself.
void activation(Activation kind, const Tensor& x, Tensor* out);

// dx = dout * f'(.) elementwise, where `saved` is the forward output Out, or the
// forward input X when activation_grad_reads_input(kind). Shapes must match.
void activation_grad(Activation kind, const Tensor& saved, const Tensor& dout, Tensor* dx);

}  // namespace skiff::kernels
