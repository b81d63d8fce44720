#include "skiff/kernels/cpu/linalg_lu.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "skiff/kernels/cpu/eigen.h"
// eigen.h first: it silences GCC's false positives inside Eigen's headers.
#include <Eigen/LU>

#include "skiff/kernels/cpu/input_handle.h"
#include "skiff/kernels/cpu/linalg.h"

namespace skiff::kernels {

namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatIn = Eigen::Map<const Mat<T>>;
template <typename T>
using MatOut = Eigen::Map<Mat<T>>;

// x's dims but the last `drop`.
Shape leading(const Shape& x, int drop) {
  Shape b;
  for (int i = 0; i + drop < x.rank(); ++i) b.push_back(x[i]);
  return b;
}

Shape with(Shape s, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) s.push_back(d);
  return s;
}

// perm[i] = the row of the original matrix that the i-th row of P^T A holds, from the
// 1-based interchanges of one matrix.
std::vector<int64_t> permutation(const int32_t* pivots, int64_t k, int64_t m) {
  std::vector<int64_t> perm(m);
  for (int64_t i = 0; i < m; ++i) perm[i] = i;
  for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[pivots[i] - 1]);
  return perm;
}

// Factors the row-major [m, n] matrix `a` in place (getrf's unblocked loop): the pivot is
// the first entry of largest magnitude in its column. Returns the info.
template <typename T>
int32_t factor(MatOut<T> a, bool pivot, int32_t* pivots) {
  const int64_t m = a.rows(), n = a.cols(), k = std::min(m, n);
  int32_t info = 0;
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    if (pivot) {
      T best = std::abs(a(j, j));
      for (int64_t i = j + 1; i < m; ++i) {
        if (std::abs(a(i, j)) > best) {
          best = std::abs(a(i, j));
          p = i;
        }
      }
      if (p != j) a.row(p).swap(a.row(j));
    }
    pivots[j] = static_cast<int32_t>(p + 1);
    if (a(j, j) != T(0)) {
      a.col(j).tail(m - j - 1) /= a(j, j);
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    a.bottomRightCorner(m - j - 1, n - j - 1).noalias() -=
        a.col(j).tail(m - j - 1) * a.row(j).tail(n - j - 1);
  }
  return info;
}

// Y = X U^-T for upper triangular U.
template <typename T, typename U>
Mat<T> times_inverse_transpose(const Mat<T>& x, const U& u) {
  return u.template triangularView<Eigen::Upper>().solve(x.transpose()).transpose();
}

}  // namespace

void lu(const Tensor& x, bool pivot, Tensor* lu, Tensor* pivots, Tensor* infos) {
  const Shape& xs = x.shape();
  SKIFF_CHECK(xs.rank() >= 2, "lu: X must be [..., m, n], got ", xs);
  const int64_t m = xs.dim(-2), n = xs.dim(-1), k = std::min(m, n);
  const Tensor src = input_handle(x);
  pivots->resize(with(leading(xs, 2), {k}), DType::kI32);
  infos->resize(leading(xs, 2), DType::kI32);
  lu->resize(xs, x.dtype());
  const int64_t batches = leading(xs, 2).numel();
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    std::copy(src.data<T>(), src.data<T>() + src.numel(), lu->data<T>());
    for (int64_t b = 0; b < batches; ++b) {
      infos->data<int32_t>()[b] = factor<T>(MatOut<T>(lu->data<T>() + b * m * n, m, n), pivot,
                                            pivots->data<int32_t>() + b * k);
    }
  });
}

void lu_grad(const Tensor& lu, const Tensor& pivots, const Tensor& dlu, Tensor* dx) {
  const Shape& s = lu.shape();
  const int64_t m = s.dim(-2), n = s.dim(-1), k = std::min(m, n);
  dx->resize(s, lu.dtype());
  SKIFF_DISPATCH_FLOATING(lu.dtype(), T, {
    Mat<T> inner(m, n), mid;
    for (int64_t b = 0, nb = leading(s, 2).numel(); b < nb; ++b) {
      MatIn<T> f(lu.data<T>() + b * m * n, m, n), g(dlu.data<T>() + b * m * n, m, n);
      // L's and U's gradients: the strictly lower [m, k] and upper [k, n] parts of g
      const Mat<T> gl = g.leftCols(k).template triangularView<Eigen::StrictlyLower>();
      const Mat<T> gu = g.topRows(k).template triangularView<Eigen::Upper>();
      const Mat<T> l = f.leftCols(k).template triangularView<Eigen::UnitLower>();
      const Mat<T> u = f.topRows(k).template triangularView<Eigen::Upper>();
      const auto l1t = l.topRows(k).transpose().template triangularView<Eigen::UnitUpper>();
      if (m <= n) {
        // A = P L [U1 U2]: M = tril_-1(L^T gL - gU2 U2^T) + triu(gU1 U1^T);
        // P^T dA = [L^-T M U1^-T, L^-T gU2]
        mid = l.transpose() * gl;
        if (n > m) mid -= gu.rightCols(n - m) * u.rightCols(n - m).transpose();
        Mat<T> mm = mid.template triangularView<Eigen::StrictlyLower>();
        mm += (gu.leftCols(m) * u.leftCols(m).transpose()).template triangularView<Eigen::Upper>();
        inner.leftCols(m) = l1t.solve(times_inverse_transpose<T>(mm, u.leftCols(m)));
        if (n > m) inner.rightCols(n - m) = l1t.solve(gu.rightCols(n - m));
      } else {
        // A = P [L1; L2] U: M = tril_-1(L1^T gL1) + triu(gU U^T - L2^T gL2);
        // P^T dA = [L1^-T M U^-T; gL2 U^-T]
        Mat<T> mm = (l.topRows(n).transpose() * gl.topRows(n))
                        .template triangularView<Eigen::StrictlyLower>();
        mid = gu * u.transpose() - l.bottomRows(m - n).transpose() * gl.bottomRows(m - n);
        mm += mid.template triangularView<Eigen::Upper>();
        inner.topRows(n) = l1t.solve(times_inverse_transpose<T>(mm, u));
        inner.bottomRows(m - n) = times_inverse_transpose<T>(Mat<T>(gl.bottomRows(m - n)), u);
      }
      const std::vector<int64_t> perm = permutation(pivots.data<int32_t>() + b * k, k, m);
      MatOut<T> d(dx->data<T>() + b * m * n, m, n);
      for (int64_t i = 0; i < m; ++i) d.row(perm[i]) = inner.row(i);
    }
  });
}

void lu_unpack(const Tensor& lu, const Tensor& pivots, Tensor* p, Tensor* l, Tensor* u) {
  const Shape& s = lu.shape();
  SKIFF_CHECK(s.rank() >= 2, "lu_unpack: X must be [..., m, n], got ", s);
  const int64_t m = s.dim(-2), n = s.dim(-1), k = std::min(m, n);
  SKIFF_CHECK(pivots.dtype() == DType::kI32 && pivots.shape() == with(leading(s, 2), {k}),
              "lu_unpack: Y (the pivots) must be int32 [..., ", k, "] with X's batch dims, got ",
              pivots.type_str(), " for X ", s);
  const int64_t batches = leading(s, 2).numel();
  const int32_t* piv = pivots.data<int32_t>();
  for (int64_t i = 0; i < pivots.numel(); ++i) {
    SKIFF_CHECK(piv[i] >= 1 && piv[i] <= m, "lu_unpack: pivot ", piv[i], " at index ", i,
                " is outside [1, ", m, "]");
  }
  const bool with_lu = l && u, with_p = p;
  if (with_lu) {
    l->resize(with(leading(s, 2), {m, k}), lu.dtype());
    u->resize(with(leading(s, 2), {k, n}), lu.dtype());
  }
  if (with_p) p->resize(with(leading(s, 2), {m, m}), lu.dtype());
  SKIFF_DISPATCH_FLOATING(lu.dtype(), T, {
    for (int64_t b = 0; b < batches; ++b) {
      MatIn<T> f(lu.data<T>() + b * m * n, m, n);
      if (with_lu) {
        MatOut<T>(l->data<T>() + b * m * k, m, k) =
            f.leftCols(k).template triangularView<Eigen::UnitLower>();
        MatOut<T>(u->data<T>() + b * k * n, k, n) =
            f.topRows(k).template triangularView<Eigen::Upper>();
      }
      if (with_p) {
        MatOut<T> pm(p->data<T>() + b * m * m, m, m);
        pm.setZero();
        const std::vector<int64_t> perm = permutation(piv + b * k, k, m);
        for (int64_t i = 0; i < m; ++i) pm(perm[i], i) = T(1);
      }
    }
  });
}

void lu_unpack_grad(const Tensor& lu, const Tensor* dl, const Tensor* du, Tensor* dx) {
  const Shape& s = lu.shape();
  const int64_t m = s.dim(-2), n = s.dim(-1), k = std::min(m, n);
  *dx = Tensor::zeros(s, lu.dtype());
  SKIFF_DISPATCH_FLOATING(lu.dtype(), T, {
    for (int64_t b = 0, nb = leading(s, 2).numel(); b < nb; ++b) {
      MatOut<T> d(dx->data<T>() + b * m * n, m, n);
      if (dl) {
        d.leftCols(k) = MatIn<T>(dl->data<T>() + b * m * k, m, k)
                            .template triangularView<Eigen::StrictlyLower>();
      }
      if (du) {
        d.topRows(k) += MatIn<T>(du->data<T>() + b * k * n, k, n)
                            .template triangularView<Eigen::Upper>()
                            .toDenseMatrix();
      }
    }
  });
}

namespace {

using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// exp(a) by scaling and squaring the [13/13] Pade approximant (Higham 2005).
MatD expm(MatD a) {
  const int64_t n = a.rows();
  if (n == 0) return a;
  static constexpr double kB[] = {64764752532480000.0,
                                  32382376266240000.0,
                                  7771770303897600.0,
                                  1187353796428800.0,
                                  129060195264000.0,
                                  10559470521600.0,
                                  670442572800.0,
                                  33522128640.0,
                                  1323241920.0,
                                  40840800.0,
                                  960960.0,
                                  16380.0,
                                  182.0,
                                  1.0};
  const double norm = a.cwiseAbs().colwise().sum().maxCoeff();
  int squarings = 0;
  if (std::isfinite(norm) && norm > 5.371920351148152) {
    squarings = static_cast<int>(std::ceil(std::log2(norm / 5.371920351148152)));
    a /= std::ldexp(1.0, squarings);
  }
  const MatD id = MatD::Identity(n, n);
  const MatD a2 = a * a, a4 = a2 * a2, a6 = a4 * a2;
  const MatD u = a * (a6 * (kB[13] * a6 + kB[11] * a4 + kB[9] * a2) + kB[7] * a6 + kB[5] * a4 +
                      kB[3] * a2 + kB[1] * id);
  const MatD v = a6 * (kB[12] * a6 + kB[10] * a4 + kB[8] * a2) + kB[6] * a6 + kB[4] * a4 +
                 kB[2] * a2 + kB[0] * id;
  MatD r = Eigen::PartialPivLU<MatD>(v - u).solve(v + u);
  for (int i = 0; i < squarings; ++i) r = r * r;
  return r;
}

}  // namespace

void matrix_exp(const Tensor& x, Tensor* out) {
  const int64_t n = square_matrix_size("matrix_exp", x.shape());
  const Tensor src = input_handle(x);
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = leading(x.shape(), 2).numel(); b < nb; ++b) {
      const MatD a = MatIn<T>(src.data<T>() + b * n * n, n, n).template cast<double>();
      MatOut<T>(out->data<T>() + b * n * n, n, n) = expm(a).template cast<T>();
    }
  });
}

void matrix_exp_grad(const Tensor& x, const Tensor& dout, Tensor* dx) {
  const int64_t n = x.dim(-1);
  dx->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    MatD block(2 * n, 2 * n);
    for (int64_t b = 0, nb = leading(x.shape(), 2).numel(); b < nb; ++b) {
      const MatD at = MatIn<T>(x.data<T>() + b * n * n, n, n).transpose().template cast<double>();
      block.setZero();
      block.topLeftCorner(n, n) = at;
      block.bottomRightCorner(n, n) = at;
      block.topRightCorner(n, n) =
          MatIn<T>(dout.data<T>() + b * n * n, n, n).template cast<double>();
      MatOut<T>(dx->data<T>() + b * n * n, n, n) =
          expm(block).topRightCorner(n, n).template cast<T>();
    }
  });
}

}  // namespace skiff::kernels
