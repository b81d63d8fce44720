// Evaluation metrics (not differentiable).
//
//   kernels::accuracy_from_scores(logits, labels, /*k=*/1, &acc, &correct, &total);
//   kernels::accuracy_from_indices(topk_indices, labels, &acc, &correct, &total);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Top-k accuracy from scores [N, C] (float32/float64) and int64/int32 labels [N, 1] or
// [N]: a sample is correct when fewer than k classes rank above its label (a higher
// score, or an equal score at a smaller class index, ranks above, as a stable top-k
// orders them). accuracy float32 [1] = correct / total (0 when N is 0); correct and
// total int32 [1]. Throws for a label outside [0, C).
void accuracy_from_scores(const Tensor& scores, const Tensor& label, int64_t k, Tensor* accuracy,
                          Tensor* correct, Tensor* total);

// The same from the indices [N, k] of each sample's top k classes (int64/int32, as the
// top_k op gives them): a sample is correct when one of its indices is its label.
void accuracy_from_indices(const Tensor& indices, const Tensor& label, Tensor* accuracy,
                           Tensor* correct, Tensor* total);

}  // namespace skiff::kernels
