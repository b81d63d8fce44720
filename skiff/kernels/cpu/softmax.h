// Softmax along one axis, its gradient, and softmax fused with the cross-entropy loss
// (numerically stable: exponentials of x - max, losses from x - log-sum-exp).
//
//   softmax(logits, /*axis=*/-1, &probs);
//   softmax_with_cross_entropy(logits, labels, /*soft_label=*/false, -1, -100, &probs, &loss);
//
// All take float32 or float64; `axis` may be negative (counted from the back).
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The axis in [0, rank) that `axis` names; throws for one out of range (op names `op`).
int normalize_axis(const char* op, int64_t axis, int rank);

// out = exp(x - max) / sum(exp(x - max)) along `axis`.
void softmax(const Tensor& x, int64_t axis, Tensor* out);
// x_grad = out * (out_grad - sum(out_grad * out, axis)).
void softmax_grad(const Tensor& out, const Tensor& out_grad, int64_t axis, Tensor* x_grad);

// The Loss shape of softmax_with_cross_entropy (Logits with the axis dim set to 1), after
// checking Label: hard labels have that shape too, soft labels Logits' shape. -1 dims
// are accepted where the other shape is unknown.
Shape cross_entropy_loss_shape(const Shape& logits, const Shape& label, bool soft_label,
                               int64_t axis);

// softmax = softmax(logits, axis); loss = -log(softmax[label]) for hard int64 (or int32)
// labels (0 where label == ignore_index; other labels outside [0, classes) throw), or
// -sum(label * log(softmax)) over the axis for soft labels of the logits' dtype.
void softmax_with_cross_entropy(const Tensor& logits, const Tensor& label, bool soft_label,
                                int64_t axis, int64_t ignore_index, Tensor* softmax, Tensor* loss);
// logits_grad = loss_grad * (softmax - onehot(label)) for hard labels (0 on ignored rows),
// loss_grad * (softmax * sum(label) - label) for soft ones.
void softmax_with_cross_entropy_grad(const Tensor& label, const Tensor& softmax,
                                     const Tensor& loss_grad, bool soft_label, int64_t axis,
                                     int64_t ignore_index, Tensor* logits_grad);

}  // namespace skiff::kernels
