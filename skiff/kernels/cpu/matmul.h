// Matrix product with numpy matmul semantics (PaddlePaddle matmul_v2): 1-D operands
// become a row (X) or a column (Y) and that dim is dropped from the result; leading
// batch dims broadcast; trans_x / trans_y transpose the last two dims of a >= 2-D operand.
//
//   Tensor out;
//   matmul(x, y, /*trans_x=*/false, /*trans_y=*/true, &out);  // [B, M, K] x [N, K]
//   matmul_grad(x, y, out_grad, false, true, &x_grad, &y_grad);
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// The result shape of matmul; -1 dims propagate. Throws skiff::Error naming both shapes
// when a rank is 0, the contracted dims differ, or batch dims do not broadcast.
Shape matmul_shape(const Shape& x, const Shape& y, bool trans_x, bool trans_y);

// out = matmul(x, y); float32 or float64, both operands of one dtype.
void matmul(const Tensor& x, const Tensor& y, bool trans_x, bool trans_y, Tensor* out);

// Gradients of matmul: x_grad (shape of x) and y_grad (shape of y) from out_grad, summed
// over the batch dims an operand was broadcast along. Either output may be nullptr.
void matmul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, bool trans_x,
                 bool trans_y, Tensor* x_grad, Tensor* y_grad);

}  // namespace skiff::kernels
