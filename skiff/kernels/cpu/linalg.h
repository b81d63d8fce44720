// Dense linear algebra over the matrices in a tensor's last two dims (leading dims are a
// batch), float32 or float64, through Eigen: inverse, determinant, slogdet, solve,
// triangular_solve, cholesky, eigh, qr, svd, and the gradients of each.
//
//   kernels::inverse("inverse", x, &out);          // x [..., n, n]
//   kernels::solve(a, b, &out);                    // a [..., n, n], b [..., n, k]
//
// A singular or non-positive-definite matrix is a skiff::Error naming the op and the
// batch index of the matrix.
#pragma once

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Checks that `x` is a batch of square matrices for `op`; returns n.
int64_t square_matrix_size(const char* op, const Shape& x);

// out = x^-1 per matrix.
void inverse(const Tensor& x, Tensor* out);
// dx = -out^T dout out^T per matrix (out the forward inverse).
void inverse_grad(const Tensor& out, const Tensor& dout, Tensor* dx);

// out[...] = det(x[...]); a singular matrix gives 0.
void determinant(const Tensor& x, Tensor* out);
// dx = dout * det * x^-T per matrix; 0 where det is 0.
void determinant_grad(const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx);

// sign[...] = sign(det x), logabsdet[...] = log|det x| (0 and -inf when singular).
void slogdet(const Tensor& x, Tensor* sign, Tensor* logabsdet);
// dx = dlogabsdet * x^-T per matrix.
void slogdet_grad(const Tensor& x, const Tensor& dlogabsdet, Tensor* dx);

// out = a^-1 b per matrix: a [..., n, n], b [..., n, k] with the same batch dims.
void solve(const Tensor& a, const Tensor& b, Tensor* out);
// db = a^-T dout, da = -db out^T; either output may be null.
void solve_grad(const Tensor& a, const Tensor& out, const Tensor& dout, Tensor* da, Tensor* db);

// How triangular_solve reads its matrix: the triangle used, whether op(a) is a or a^T,
// and whether the diagonal is taken as ones.
struct TriangularMode {
  bool upper = true;
  bool transpose = false;
  bool unitriangular = false;
};
// out = op(a)^-1 b per matrix, reading only a's triangle named by `mode`.
void triangular_solve(const Tensor& a, const Tensor& b, TriangularMode mode, Tensor* out);
// db = op(a)^-T dout; da = the triangle of -(db out^T) (transposed for transpose mode)
// that the forward read; either output may be null.
void triangular_solve_grad(const Tensor& a, const Tensor& out, const Tensor& dout,
                           TriangularMode mode, Tensor* da, Tensor* db);

// out = L (lower) or L^T (upper) with x = L L^T, reading x's lower triangle.
void cholesky(const Tensor& x, bool upper, Tensor* out);
// The symmetric gradient of x from the factor `out` and its gradient.
void cholesky_grad(const Tensor& out, const Tensor& dout, bool upper, Tensor* dx);

// The eigenvalues (ascending, [..., n]) and eigenvectors (columns, [..., n, n]) of the
// symmetric matrices whose lower (or upper) triangle x holds.
void eigh(const Tensor& x, bool lower, Tensor* values, Tensor* vectors);

// The eigenvalues ([..., n]) and eigenvectors (columns, [..., n, n], each of unit norm with
// its largest component real, as LAPACK's geev gives them) of general square matrices:
// complex64 for float32 and complex64 input, complex128 for float64 and complex128.
void eig(const Tensor& x, Tensor* values, Tensor* vectors);
// dx = V (diag(dvalues) + F o (V^T dV - dV^T V) / 2) V^T, F_ij = 1 / (w_j - w_i);
// either gradient may be null (taken as zero).
void eigh_grad(const Tensor& values, const Tensor& vectors, const Tensor* dvalues,
               const Tensor* dvectors, Tensor* dx);

// The Householder QR factorisation x = q r of each [m, n] matrix of x, k = min(m, n):
// q [..., m, k] and r [..., k, n] (upper triangular), or q [..., m, m] and r [..., m, n]
// with `complete`.
void qr(const Tensor& x, bool complete, Tensor* q, Tensor* r);
// dx = (dq + q S) r^-T, S the symmetric matrix whose upper triangle is that of
// dr r^T - q^T dq; needs m >= n and the reduced factors; either gradient may be null.
void qr_grad(const Tensor& q, const Tensor& r, const Tensor* dq, const Tensor* dr, Tensor* dx);

// The singular value decomposition x = u diag(s) vh of each [m, n] matrix of x, k =
// min(m, n), s descending: u [..., m, k], s [..., k], vh [..., k, n], or u [..., m, m] and
// vh [..., n, n] with `full_matrices`.
void svd(const Tensor& x, bool full_matrices, Tensor* u, Tensor* s, Tensor* vh);
// dx from the reduced factors and any of their gradients (null taken as zero), as
// U [diag(ds) + (F o (U^T dU - dU^T U)) S + S (F o (V^T dV - dV^T V))] V^T plus the
// projections of dU and dV off U and V, F_ij = 1 / (s_j^2 - s_i^2): needs distinct
// nonzero singular values when dU or dV is given.
void svd_grad(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor* du,
              const Tensor* ds, const Tensor* dvh, Tensor* dx);

}  // namespace skiff::kernels
