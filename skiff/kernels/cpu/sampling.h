// Draws from distributions given per element or per row, from random.h's engine one draw
// after another in element order. multinomial and poisson draw as PaddlePaddle's CPU
// kernels do (their values are Paddle's after paddle.seed); standard_gamma is the C++
// standard library's gamma sampler (Paddle's own sampler gives other values).
//
//   kernels::multinomial(probs, /*num_samples=*/3, /*replacement=*/false, /*seed=*/0, &out);
//   kernels::poisson(rates, /*seed=*/0, &counts);
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// probs [C] or [N, C] (float32/float64; non-negative, finite, a positive sum per row)
// -> out int64 [num_samples] or [N, num_samples]: category indices drawn with the row's
// weights. Each draw is the first category whose normalised cumulative weight reaches a
// uniform draw; without replacement the drawn category's weight is zeroed and the row
// renormalised before the next draw (so a row needs num_samples nonzero weights).
void multinomial(const Tensor& probs, int64_t num_samples, bool replacement, uint64_t seed,
                 Tensor* out);

// out = Poisson(x) counts in x's dtype (float32/float64), x >= 0 and finite.
void poisson(const Tensor& x, uint64_t seed, Tensor* out);

// out = Gamma(x, 1) draws in x's dtype (float32/float64), x > 0 and finite.
void standard_gamma(const Tensor& x, uint64_t seed, Tensor* out);

}  // namespace skiff::kernels
