// Elementwise math over any numeric dtype: absolute value, square and clip, with their
// gradients (float32, float64), and softshrink (floating). Integer results wrap like numpy's on
// overflow
// (|INT_MIN| stays INT_MIN); NaN stays NaN.
//
//   kernels::absolute(x, &out);               // |x|
//   kernels::clip(x, -1.0, 1.0, &out);         // min(max(x, -1), 1)
//   kernels::clip_grad(x, dout, -1.0, 1.0, &dx);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out = |x|; out takes x's shape and dtype and may be x itself.
void absolute(const Tensor& x, Tensor* out);
// dx = dout * sign(x) (0 where x == 0).
void absolute_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

// out = x * x.
void square(const Tensor& x, Tensor* out);
// dx = 2 * x * dout.
void square_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

// out = min(max(x, min), max); min <= max (throws otherwise). Integer inputs compare
// with the bounds exactly (a bound past the dtype's range does not clip).
void clip(const Tensor& x, double min, double max, Tensor* out);
// dx = dout where min < x < max, 0 elsewhere.
void clip_grad(const Tensor& x, const Tensor& dout, double min, double max, Tensor* dx);

// out = x - t where x > t, x + t where x < -t, 0 between (t = threshold >= 0); float32,
// float64.
void softshrink(const Tensor& x, double threshold, Tensor* out);
// dx = dout where |x| > t, 0 elsewhere.
void softshrink_grad(const Tensor& x, const Tensor& dout, double threshold, Tensor* dx);

}  // namespace skiff::kernels
