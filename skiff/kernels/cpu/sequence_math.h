// Running sums, products, log-sum-exps and extremes along an axis (cumsum, cumprod,
// logcumsumexp, cummax / cummin) with their gradients, and evenly spaced values (arange).
//
//   cumsum(x, /*axis=*/-1, /*exclusive=*/false, /*reverse=*/false, &out);  // [1, 2, 3] -> [1, 3,
//   6] arange(0, 1, 0.25, DType::kF32, &out);                               // [0, 0.25, 0.5, 0.75]
//   cum_extreme(x, /*axis=*/0, /*largest=*/true, &values, &indices);  // [1, 3, 2] -> [1, 3, 3],
//   [0, 1, 1]
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// out[i] = x[0] + ... + x[i] along `axis` (negative counts from the back); exclusive
// leaves out x[i] itself, reverse sums from the end instead. float32, float64, int32,
// int64; `out` may be x.
void cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse, Tensor* out);

// The number of values of arange(start, end, step): ceil((end - start) / step), or 0
// when step points away from end. Throws for a zero or non-finite step or bounds.
// out[i] = x[0] * ... * x[i] along `axis` (negative counts from the back). float32,
// float64, int32, int64; `out` may be x.
void cumprod(const Tensor& x, int64_t axis, Tensor* out);
// x_grad = the gradient of cumprod through `out` (cumprod(x)) for out_grad: one reverse
// pass without division, exact for rows holding zeros. Floating dtypes.
void cumprod_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, int64_t axis,
                  Tensor* x_grad);

// out[i] = log(exp(x[0]) + ... + exp(x[i])) along `axis`, computed stably (no overflow for
// large x, -inf for a row of -inf). Floating dtypes; `out` may be x.
void logcumsumexp(const Tensor& x, int64_t axis, Tensor* out);
// x_grad[j] = sum over i >= j of out_grad[i] * exp(x[j] - out[i]), from reverse running
// log-sum-exps of the positive and negative parts of out_grad (no overflow). Floating.
void logcumsumexp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, int64_t axis,
                       Tensor* x_grad);

// values[i] = the largest (smallest) of x[0..i] along `axis`, indices[i] (int64) = where
// it is: the last position on ties; NaN wins and stays (the latest NaN's position).
// float32, float64, int32, int64; the gradient is top_k_grad(indices, values_grad, ...).
void cum_extreme(const Tensor& x, int64_t axis, bool largest, Tensor* values, Tensor* indices);

int64_t arange_length(double start, double end, double step);
// out = [start, start + step, ...] stopping before `end`, 1-D of `dtype` (numeric);
// integer dtypes require integral start, end and step (throws naming them otherwise).
void arange(double start, double end, double step, DType dtype, Tensor* out);
// The value of arange's one-element bound input `name` (Start, End or Step); throws
// naming it when it holds another number of elements.
double arange_bound(const Tensor& t, const char* name);

}  // namespace skiff::kernels
