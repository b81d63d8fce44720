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

// Throws skiff::Error naming the dtypes unless X and Y share a floating dtype and `out`
// is that dtype, or float32 for bfloat16 operands.
void check_matmul_dtypes(DType x, DType y, DType out);

// out = matmul(x, y) in x's dtype; float32, float64 or bfloat16, both operands of one dtype.
void matmul(const Tensor& x, const Tensor& y, bool trans_x, bool trans_y, Tensor* out);
// out = matmul(x, y) in `out_dtype` (see check_matmul_dtypes). bfloat16 operands are
// multiplied by oneDNN with float32 accumulation; a bfloat16 result is rounded once, a
// float32 one not at all.
void matmul(const Tensor& x, const Tensor& y, bool trans_x, bool trans_y, DType out_dtype,
            Tensor* out);

// Gradients of matmul: x_grad (shape of x) and y_grad (shape of y) from out_grad, summed
// over the batch dims an operand was broadcast along. Either output may be nullptr. The
// grads take x's dtype; for bfloat16 operands out_grad may be float32 (out_dtype float32)
// and is then rounded to bfloat16 before the products.
void matmul_grad(const Tensor& x, const Tensor& y, const Tensor& out_grad, bool trans_x,
                 bool trans_y, Tensor* x_grad, Tensor* y_grad);

}  // namespace skiff::kernels
