// Log-softmax along one axis and its gradient (float32, float64), numerically stable:
// out = x - max - log(sum(exp(x - max))), so no exponential overflows or underflows to
// a -inf that the true value does not have.
//
//   kernels::log_softmax(logits, /*axis=*/-1, &log_probs);
//   kernels::log_softmax_grad(log_probs, log_probs_grad, -1, &logits_grad);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = x - logsumexp(x, axis); out takes x's shape and may be x. `axis` may be negative.
void log_softmax(const Tensor& x, int64_t axis, Tensor* out);
// x_grad = out_grad - exp(out) * sum(out_grad, axis), from the forward output `out`.
void log_softmax_grad(const Tensor& out, const Tensor& out_grad, int64_t axis, Tensor* x_grad);

}  // namespace skiff::kernels
