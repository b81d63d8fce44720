// Binary elementwise arithmetic with broadcasting, its gradients, and scale.
//
//   Shape s = kernels::broadcast_shape(x.shape(), y.shape(), /*axis=*/-1);
//   kernels::elementwise_binary(kernels::BinaryOp::kAdd, x, y, &out);   // out = x + y
//   kernels::elementwise_binary_activation(kernels::BinaryOp::kAdd, x, y,
//                                          kernels::Activation::kTanh, &out);  // tanh(x + y)
//   kernels::elementwise_binary_grad(kernels::BinaryOp::kMul, x, y, out, dout, &dx, &dy);
//   kernels::scale(x, 2.0, 1.0, /*bias_after_scale=*/true, &out);      // out = 2x + 1
//
// Broadcasting: with axis == -1 the numpy rule (shapes aligned at their last dims;
// each dim pair equal or one of them 1). With axis >= 0 the PaddlePaddle rule: the
// lower-rank operand's dims align with the other's dims starting at `axis`, then the
// same per-dim rule applies.
#pragma once

#include "skiff/core/tensor.h"
#include "skiff/kernels/cpu/activation.h"

namespace skiff::kernels {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin };

// "add", "sub", "mul", "div", "max", "min".
const char* binary_op_name(BinaryOp op);

// The shape of the broadcast result of x and y (either may hold -1 dims: the result
// is -1 where it cannot be known yet). Throws skiff::Error naming both shapes and
// the axis when they cannot be broadcast.
Shape broadcast_shape(const Shape& x, const Shape& y, int axis = -1);

// out = x <op> y, broadcast; x and y share one dtype (f32, f64, i32, i64 or bf16; bf16
// computes in float32 and rounds each result once; add, sub, mul and div also take
// complex64 and complex128). Integer division truncates toward
// zero and throws on a zero divisor. `out` may be the same tensor as x or y (in place).
void elementwise_binary(BinaryOp op, const Tensor& x, const Tensor& y, Tensor* out, int axis = -1);

// out = act(x <op> y): elementwise_binary, then the activation over out in place (one op
// where a program had two: the executor fuses an activation into the elementwise op it
// follows). float32 and float64.
void elementwise_binary_activation(BinaryOp op, const Tensor& x, const Tensor& y, Activation act,
                                   Tensor* out, int axis = -1);

// Gradients of out = x <op> y (f32, f64, bf16 through float32; complex for add, sub, mul
// and div, as Paddle: dx = dout * conj(d out / d x)): dx and dy get x's and y's shapes,
// summing
// dout over the dims that were broadcast. max/min route dout to the larger/smaller
// input, ties to x. `out` is read only by kDiv. A null dx or dy is skipped.
void elementwise_binary_grad(BinaryOp op, const Tensor& x, const Tensor& y, const Tensor& out,
                             const Tensor& dout, Tensor* dx, Tensor* dy, int axis = -1);

// out = scale * x + bias when bias_after_scale, else scale * (x + bias); any numeric
// dtype or complex (real scale and bias). On integers a fractional scale or bias is applied in
// double and truncated.
void scale(const Tensor& x, double scale, double bias, bool bias_after_scale, Tensor* out);

}  // namespace skiff::kernels
