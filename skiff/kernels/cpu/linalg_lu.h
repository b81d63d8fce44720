// The LU factorisation with partial pivoting as LAPACK's getrf returns it (L and U packed in
// one matrix, 1-based row interchanges, an info per matrix), its unpacking into P, L, U, and
// the matrix exponential; each with its gradient. Matrices are the last two dims (leading dims
// are a batch), float32 or float64.
//
//   kernels::lu(a, true, &lu, &pivots, &infos);           // a [..., m, n] = P L U
//   kernels::lu_unpack(lu, pivots, &p, &l, &u);
//   kernels::matrix_exp(a, &out);                          // a [..., n, n]
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// x = P L U per [m, n] matrix, k = min(m, n): lu [..., m, n] holds L's strictly lower part
// (L has a unit diagonal) and U's upper part; pivots [..., k] (int32) the 1-based row
// swapped with row i at step i (i + 1 throughout without `pivot`); infos [...] (int32) 0, or
// the 1-based index of the first zero pivot (the factors are still returned).
void lu(const Tensor& x, bool pivot, Tensor* lu, Tensor* pivots, Tensor* infos);
// dx from the packed factors, their pivots and the gradient of the packed lu (its strictly
// lower part is L's, its upper part U's); needs nonzero pivots.
void lu_grad(const Tensor& lu, const Tensor& pivots, const Tensor& dlu, Tensor* dx);

// P [..., m, m] (a permutation, lu's dtype), L [..., m, k] (unit lower) and U [..., k, n]
// (upper) from lu's packed factors and pivots; a null output is skipped (L and U go
// together).
void lu_unpack(const Tensor& lu, const Tensor& pivots, Tensor* p, Tensor* l, Tensor* u);
// dx = the strictly lower part of dl and the upper part of du, placed in lu's [m, n] shape;
// either gradient may be null.
void lu_unpack_grad(const Tensor& lu, const Tensor* dl, const Tensor* du, Tensor* dx);

// out = exp(x) per square matrix, by scaling and squaring a degree-13 Pade approximant
// (in double precision for both dtypes).
void matrix_exp(const Tensor& x, Tensor* out);
// dx = the upper right block of exp([[x^T, dout], [0, x^T]]) per matrix.
void matrix_exp_grad(const Tensor& x, const Tensor& dout, Tensor* dx);

}  // namespace skiff::kernels
