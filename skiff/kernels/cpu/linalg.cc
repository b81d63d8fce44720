#include "skiff/kernels/cpu/linalg.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "skiff/kernels/cpu/eigen.h"
// eigen.h first: it silences GCC's false positives inside Eigen's headers.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

namespace skiff::kernels {

namespace {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatIn = Eigen::Map<const Mat<T>>;
template <typename T>
using MatOut = Eigen::Map<Mat<T>>;

// The batch dims of x (all but the last two).
Shape batch_dims(const Shape& x) {
  Shape b;
  for (int i = 0; i + 2 < x.rank(); ++i) b.push_back(x[i]);
  return b;
}

int64_t batch_count(const Shape& x) { return batch_dims(x).numel(); }

// An LU factorisation that reports an exactly zero pivot as a singular matrix.
template <typename T>
Eigen::PartialPivLU<Mat<T>> checked_lu(const char* op, const T* a, int64_t n, int64_t b) {
  Eigen::PartialPivLU<Mat<T>> lu(MatIn<T>(a, n, n));
  for (int64_t i = 0; i < n; ++i) {
    SKIFF_CHECK(lu.matrixLU()(i, i) != T(0), op, ": the matrix at batch index ", b,
                " is singular (zero pivot in column ", i, ")");
  }
  return lu;
}

template <typename T>
bool lu_is_singular(const Eigen::PartialPivLU<Mat<T>>& lu) {
  return (lu.matrixLU().diagonal().array() == T(0)).any();
}

// Checks the shapes of a [..., n, n] and b [..., n, k] for `op`.
void check_solve_shapes(const char* op, const Shape& a, const Shape& b) {
  const int64_t n = square_matrix_size(op, a);
  SKIFF_CHECK(b.rank() == a.rank() && batch_dims(a) == batch_dims(b) && b.dim(-2) == n, op,
              ": Y must be [..., ", n, ", k] with X's batch dims, got X ", a, " and Y ", b);
}

template <typename T>
void triangular_solve_one(MatIn<T> a, const Mat<T>& b, TriangularMode m, MatOut<T> out) {
  // op(a) = a^T turns the triangle read into the other one.
  const Mat<T> op = m.transpose ? Mat<T>(a.transpose()) : Mat<T>(a);
  if (m.upper != m.transpose) {
    if (m.unitriangular) {
      out = op.template triangularView<Eigen::UnitUpper>().solve(b);
    } else {
      out = op.template triangularView<Eigen::Upper>().solve(b);
    }
  } else if (m.unitriangular) {
    out = op.template triangularView<Eigen::UnitLower>().solve(b);
  } else {
    out = op.template triangularView<Eigen::Lower>().solve(b);
  }
}

}  // namespace

int64_t square_matrix_size(const char* op, const Shape& x) {
  SKIFF_CHECK(x.rank() >= 2 && x.dim(-1) == x.dim(-2), op,
              ": X must be a batch of square matrices [..., n, n], got ", x);
  return x.dim(-1);
}

void inverse(const Tensor& x, Tensor* out) {
  const int64_t n = square_matrix_size("inverse", x.shape());
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      const auto lu = checked_lu<T>("inverse", x.data<T>() + b * n * n, n, b);
      MatOut<T>(out->data<T>() + b * n * n, n, n) = lu.inverse();
    }
  });
}

void inverse_grad(const Tensor& out, const Tensor& dout, Tensor* dx) {
  const int64_t n = out.dim(-1);
  dx->resize(out.shape(), out.dtype());
  SKIFF_DISPATCH_FLOATING(out.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(out.shape()); b < nb; ++b) {
      MatIn<T> inv(out.data<T>() + b * n * n, n, n), g(dout.data<T>() + b * n * n, n, n);
      MatOut<T>(dx->data<T>() + b * n * n, n, n) = -(inv.transpose() * g * inv.transpose());
    }
  });
}

void determinant(const Tensor& x, Tensor* out) {
  const int64_t n = square_matrix_size("determinant", x.shape());
  out->resize(batch_dims(x.shape()), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      out->data<T>()[b] = n == 0 ? T(1) : MatIn<T>(x.data<T>() + b * n * n, n, n).determinant();
    }
  });
}

void determinant_grad(const Tensor& x, const Tensor& out, const Tensor& dout, Tensor* dx) {
  const int64_t n = x.dim(-1);
  dx->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      MatOut<T> d(dx->data<T>() + b * n * n, n, n);
      const T det = out.data<T>()[b];
      if (det == T(0)) {
        d.setZero();
        continue;
      }
      Eigen::PartialPivLU<Mat<T>> lu(MatIn<T>(x.data<T>() + b * n * n, n, n));
      d = (dout.data<T>()[b] * det) * lu.inverse().transpose();
    }
  });
}

void slogdet(const Tensor& x, Tensor* sign, Tensor* logabsdet) {
  const int64_t n = square_matrix_size("slogdet", x.shape());
  sign->resize(batch_dims(x.shape()), x.dtype());
  logabsdet->resize(batch_dims(x.shape()), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      T s = 1, log_abs = 0;
      if (n > 0) {
        Eigen::PartialPivLU<Mat<T>> lu(MatIn<T>(x.data<T>() + b * n * n, n, n));
        s = static_cast<T>(lu.permutationP().determinant());
        for (int64_t i = 0; i < n; ++i) {
          const T u = lu.matrixLU()(i, i);
          if (u < 0) s = -s;
          log_abs += std::log(std::abs(u));
        }
        if (lu_is_singular(lu)) s = 0;
      }
      sign->data<T>()[b] = s;
      logabsdet->data<T>()[b] = log_abs;
    }
  });
}

void slogdet_grad(const Tensor& x, const Tensor& dlogabsdet, Tensor* dx) {
  const int64_t n = x.dim(-1);
  dx->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      const auto lu = checked_lu<T>("slogdet_grad", x.data<T>() + b * n * n, n, b);
      MatOut<T>(dx->data<T>() + b * n * n, n, n) =
          dlogabsdet.data<T>()[b] * lu.inverse().transpose();
    }
  });
}

void solve(const Tensor& a, const Tensor& b, Tensor* out) {
  check_solve_shapes("solve", a.shape(), b.shape());
  const int64_t n = a.dim(-1), k = b.dim(-1);
  out->resize(b.shape(), b.dtype());
  SKIFF_DISPATCH_FLOATING(a.dtype(), T, {
    for (int64_t i = 0, nb = batch_count(a.shape()); i < nb; ++i) {
      const auto lu = checked_lu<T>("solve", a.data<T>() + i * n * n, n, i);
      MatOut<T>(out->data<T>() + i * n * k, n, k) =
          lu.solve(MatIn<T>(b.data<T>() + i * n * k, n, k));
    }
  });
}

void solve_grad(const Tensor& a, const Tensor& out, const Tensor& dout, Tensor* da, Tensor* db) {
  const int64_t n = a.dim(-1), k = out.dim(-1);
  if (da) da->resize(a.shape(), a.dtype());
  if (db) db->resize(out.shape(), out.dtype());
  SKIFF_DISPATCH_FLOATING(a.dtype(), T, {
    Mat<T> g;
    for (int64_t i = 0, nb = batch_count(a.shape()); i < nb; ++i) {
      const auto lu = checked_lu<T>("solve_grad", a.data<T>() + i * n * n, n, i);
      g = lu.transpose().solve(MatIn<T>(dout.data<T>() + i * n * k, n, k));
      if (db) MatOut<T>(db->data<T>() + i * n * k, n, k) = g;
      if (da) {
        MatOut<T>(da->data<T>() + i * n * n, n, n) =
            -(g * MatIn<T>(out.data<T>() + i * n * k, n, k).transpose());
      }
    }
  });
}

void triangular_solve(const Tensor& a, const Tensor& b, TriangularMode mode, Tensor* out) {
  check_solve_shapes("triangular_solve", a.shape(), b.shape());
  const int64_t n = a.dim(-1), k = b.dim(-1);
  out->resize(b.shape(), b.dtype());
  SKIFF_DISPATCH_FLOATING(a.dtype(), T, {
    for (int64_t i = 0, nb = batch_count(a.shape()); i < nb; ++i) {
      MatIn<T> m(a.data<T>() + i * n * n, n, n);
      for (int64_t d = 0; d < n && !mode.unitriangular; ++d) {
        SKIFF_CHECK(m(d, d) != T(0), "triangular_solve: the matrix at batch index ", i,
                    " is singular (zero diagonal element ", d, ")");
      }
      triangular_solve_one<T>(m, MatIn<T>(b.data<T>() + i * n * k, n, k), mode,
                              MatOut<T>(out->data<T>() + i * n * k, n, k));
    }
  });
}

void triangular_solve_grad(const Tensor& a, const Tensor& out, const Tensor& dout,
                           TriangularMode mode, Tensor* da, Tensor* db) {
  const int64_t n = a.dim(-1), k = out.dim(-1);
  if (da) da->resize(a.shape(), a.dtype());
  if (db) db->resize(out.shape(), out.dtype());
  TriangularMode back = mode;
  back.transpose = !mode.transpose;
  SKIFF_DISPATCH_FLOATING(a.dtype(), T, {
    Mat<T> g(n, k), ga;
    for (int64_t i = 0, nb = batch_count(a.shape()); i < nb; ++i) {
      triangular_solve_one<T>(MatIn<T>(a.data<T>() + i * n * n, n, n),
                              MatIn<T>(dout.data<T>() + i * n * k, n, k), back,
                              MatOut<T>(g.data(), n, k));
      if (db) MatOut<T>(db->data<T>() + i * n * k, n, k) = g;
      if (!da) continue;
      ga = -(g * MatIn<T>(out.data<T>() + i * n * k, n, k).transpose());
      if (mode.transpose) ga.transposeInPlace();
      MatOut<T> d(da->data<T>() + i * n * n, n, n);
      if (mode.upper) {
        d = ga.template triangularView<Eigen::Upper>();
      } else {
        d = ga.template triangularView<Eigen::Lower>();
      }
      if (mode.unitriangular) d.diagonal().setZero();
    }
  });
}

void cholesky(const Tensor& x, bool upper, Tensor* out) {
  const int64_t n = square_matrix_size("cholesky", x.shape());
  out->resize(x.shape(), x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      Eigen::LLT<Mat<T>> llt(MatIn<T>(x.data<T>() + b * n * n, n, n));
      SKIFF_CHECK(llt.info() == Eigen::Success, "cholesky: the matrix at batch index ", b,
                  " is not positive definite");
      MatOut<T> o(out->data<T>() + b * n * n, n, n);
      if (upper) {
        o = llt.matrixU();
      } else {
        o = llt.matrixL();
      }
    }
  });
}

void cholesky_grad(const Tensor& out, const Tensor& dout, bool upper, Tensor* dx) {
  const int64_t n = out.dim(-1);
  dx->resize(out.shape(), out.dtype());
  SKIFF_DISPATCH_FLOATING(out.dtype(), T, {
    Mat<T> l, gl, phi;
    for (int64_t b = 0, nb = batch_count(out.shape()); b < nb; ++b) {
      l = MatIn<T>(out.data<T>() + b * n * n, n, n);
      gl = MatIn<T>(dout.data<T>() + b * n * n, n, n);
      if (upper) {
        l.transposeInPlace();
        gl.transposeInPlace();
      }
      phi = (l.transpose() * gl).template triangularView<Eigen::Lower>();
      phi.diagonal() *= T(0.5);
      // S = L^-T phi L^-1, then the symmetric part.
      const auto lt = l.transpose().template triangularView<Eigen::Upper>();
      phi = lt.solve(phi);
      phi = lt.solve(phi.transpose()).transpose();
      MatOut<T>(dx->data<T>() + b * n * n, n, n) = T(0.5) * (phi + phi.transpose());
    }
  });
}

void eigh(const Tensor& x, bool lower, Tensor* values, Tensor* vectors) {
  const int64_t n = square_matrix_size("eigh", x.shape());
  Shape vshape = batch_dims(x.shape());
  vshape.push_back(n);
  values->resize(vshape, real_of(x.dtype()));
  vectors->resize(x.shape(), x.dtype());
  if (n == 0) return;           // no eigenvalues, [0, 0] eigenvectors
  if (is_complex(x.dtype())) {  // Hermitian: real eigenvalues, complex eigenvectors
    SKIFF_DISPATCH_COMPLEX(x.dtype(), T, {
      using R = typename T::value_type;
      Mat<T> a;
      for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
        a = MatIn<T>(x.data<T>() + b * n * n, n, n);
        if (!lower) a = a.adjoint().eval();  // the solver reads the lower triangle
        Eigen::SelfAdjointEigenSolver<Mat<T>> es(a);
        SKIFF_CHECK(es.info() == Eigen::Success,
                    "eigh: the eigenvalues of the matrix at batch index ", b, " did not converge");
        Eigen::Map<Eigen::Matrix<R, Eigen::Dynamic, 1>>(values->data<R>() + b * n, n) =
            es.eigenvalues();
        MatOut<T>(vectors->data<T>() + b * n * n, n, n) = es.eigenvectors();
      }
    });
    return;
  }
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    Mat<T> a;
    for (int64_t b = 0, nb = batch_count(x.shape()); b < nb; ++b) {
      a = MatIn<T>(x.data<T>() + b * n * n, n, n);
      if (!lower) a.transposeInPlace();
      Eigen::SelfAdjointEigenSolver<Mat<T>> es(a);
      SKIFF_CHECK(es.info() == Eigen::Success,
                  "eigh: the eigenvalues of the matrix at batch "
                  "index ",
                  b, " did not converge");
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(values->data<T>() + b * n, n) =
          es.eigenvalues();
      MatOut<T>(vectors->data<T>() + b * n * n, n, n) = es.eigenvectors();
    }
  });
}

namespace {

// Scales each column of v by a unit phase that makes its largest component real and
// positive (the columns already have unit norm).
template <typename M>
void make_largest_component_real(M* v) {
  for (Eigen::Index j = 0; j < v->cols(); ++j) {
    Eigen::Index top = 0;
    v->col(j).cwiseAbs().maxCoeff(&top);
    const typename M::Scalar pivot = (*v)(top, j);
    if (std::abs(pivot) > 0) v->col(j) *= std::conj(pivot) / std::abs(pivot);
  }
}

}  // namespace

void eig(const Tensor& x, Tensor* values, Tensor* vectors) {
  const int64_t n = square_matrix_size("eig", x.shape());
  const DType out_dtype = is_complex(x.dtype()) ? x.dtype() : complex_of(x.dtype());
  Shape vshape = batch_dims(x.shape());
  vshape.push_back(n);
  values->resize(vshape, out_dtype);
  vectors->resize(x.shape(), out_dtype);
  if (n == 0) return;
  const int64_t nb = batch_count(x.shape());
  SKIFF_DISPATCH_COMPLEX(out_dtype, C, {
    using R = typename C::value_type;
    Mat<C> v;
    for (int64_t b = 0; b < nb; ++b) {
      Eigen::Matrix<C, Eigen::Dynamic, 1> w;
      if (is_complex(x.dtype())) {
        Eigen::ComplexEigenSolver<Mat<C>> es(MatIn<C>(x.data<C>() + b * n * n, n, n));
        SKIFF_CHECK(es.info() == Eigen::Success,
                    "eig: the eigenvalues of the matrix at batch index ", b, " did not converge");
        w = es.eigenvalues();
        v = es.eigenvectors();
      } else {
        Eigen::EigenSolver<Mat<R>> es(MatIn<R>(x.data<R>() + b * n * n, n, n));
        SKIFF_CHECK(es.info() == Eigen::Success,
                    "eig: the eigenvalues of the matrix at batch index ", b, " did not converge");
        w = es.eigenvalues();
        v = es.eigenvectors();
      }
      v.colwise().normalize();
      make_largest_component_real(&v);
      Eigen::Map<Eigen::Matrix<C, Eigen::Dynamic, 1>>(values->data<C>() + b * n, n) = w;
      MatOut<C>(vectors->data<C>() + b * n * n, n, n) = v;
    }
  });
}

void eigh_grad(const Tensor& values, const Tensor& vectors, const Tensor* dvalues,
               const Tensor* dvectors, Tensor* dx) {
  const int64_t n = vectors.dim(-1);
  dx->resize(vectors.shape(), vectors.dtype());
  SKIFF_DISPATCH_FLOATING(vectors.dtype(), T, {
    Mat<T> s(n, n), vtg;
    for (int64_t b = 0, nb = batch_count(vectors.shape()); b < nb; ++b) {
      MatIn<T> v(vectors.data<T>() + b * n * n, n, n);
      const T* w = values.data<T>() + b * n;
      s.setZero();
      if (dvectors) {
        vtg = v.transpose() * MatIn<T>(dvectors->data<T>() + b * n * n, n, n);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            if (i != j) s(i, j) = T(0.5) * (vtg(i, j) - vtg(j, i)) / (w[j] - w[i]);
          }
        }
      }
      if (dvalues) {
        for (int64_t i = 0; i < n; ++i) s(i, i) = dvalues->data<T>()[b * n + i];
      }
      MatOut<T>(dx->data<T>() + b * n * n, n, n) = v * s * v.transpose();
    }
  });
}

void qr(const Tensor& x, bool complete, Tensor* q, Tensor* r) {
  const Shape& xs = x.shape();
  SKIFF_CHECK(xs.rank() >= 2, "qr: X must be [..., m, n], got ", xs);
  const int64_t m = xs.dim(-2), n = xs.dim(-1), k = std::min(m, n);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  Shape q_shape = batch_dims(xs), r_shape = batch_dims(xs);
  q_shape.push_back(m);
  q_shape.push_back(q_cols);
  r_shape.push_back(r_rows);
  r_shape.push_back(n);
  q->resize(q_shape, x.dtype());
  r->resize(r_shape, x.dtype());
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    for (int64_t b = 0, nb = batch_count(xs); b < nb; ++b) {
      const Eigen::HouseholderQR<Mat<T>> h(MatIn<T>(x.data<T>() + b * m * n, m, n));
      MatOut<T>(q->data<T>() + b * m * q_cols, m, q_cols) =
          h.householderQ() * Mat<T>::Identity(m, q_cols);
      MatOut<T> rb(r->data<T>() + b * r_rows * n, r_rows, n);
      rb.setZero();
      rb.topRows(k) = h.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    }
  });
}

void qr_grad(const Tensor& q, const Tensor& r, const Tensor* dq, const Tensor* dr, Tensor* dx) {
  const int64_t m = q.dim(-2), n = r.dim(-1);
  SKIFF_CHECK(m >= n && q.dim(-1) == n && r.dim(-2) == n,
              "qr_grad: the gradient needs the reduced factors of a matrix with m >= n, got Q ",
              q.shape(), " and R ", r.shape());
  Shape x_shape = batch_dims(q.shape());
  x_shape.push_back(m);
  x_shape.push_back(n);
  dx->resize(x_shape, q.dtype());
  SKIFF_DISPATCH_FLOATING(q.dtype(), T, {
    Mat<T> mid(n, n), sym(n, n), lifted(m, n);
    for (int64_t b = 0, nb = batch_count(q.shape()); b < nb; ++b) {
      MatIn<T> qb(q.data<T>() + b * m * n, m, n), rb(r.data<T>() + b * n * n, n, n);
      mid.setZero();
      lifted.setZero();
      if (dr) mid += MatIn<T>(dr->data<T>() + b * n * n, n, n) * rb.transpose();
      if (dq) {
        MatIn<T> dqb(dq->data<T>() + b * m * n, m, n);
        mid -= qb.transpose() * dqb;
        lifted = dqb;
      }
      sym = mid.template triangularView<Eigen::Upper>();
      sym += mid.template triangularView<Eigen::StrictlyUpper>().transpose();
      lifted += qb * sym;
      MatOut<T>(dx->data<T>() + b * m * n, m, n) =
          rb.template triangularView<Eigen::Upper>().solve(lifted.transpose()).transpose();
    }
  });
}

void svd(const Tensor& x, bool full_matrices, Tensor* u, Tensor* s, Tensor* vh) {
  const Shape& xs = x.shape();
  SKIFF_CHECK(xs.rank() >= 2, "svd: X must be [..., m, n], got ", xs);
  const int64_t m = xs.dim(-2), n = xs.dim(-1), k = std::min(m, n);
  const int64_t u_cols = full_matrices ? m : k, vh_rows = full_matrices ? n : k;
  Shape u_shape = batch_dims(xs), s_shape = batch_dims(xs), vh_shape = batch_dims(xs);
  u_shape.push_back(m);
  u_shape.push_back(u_cols);
  s_shape.push_back(k);
  vh_shape.push_back(vh_rows);
  vh_shape.push_back(n);
  u->resize(u_shape, x.dtype());
  s->resize(s_shape, x.dtype());
  vh->resize(vh_shape, x.dtype());
  const unsigned options = full_matrices ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                                         : (Eigen::ComputeThinU | Eigen::ComputeThinV);
  if (k == 0) {
    // An empty matrix (numpy's answer): no singular values; the full U and V^T are
    // identities of their sizes (any orthonormal basis is one), the thin ones empty.
    SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
      for (int64_t b = 0, nb = batch_count(xs); b < nb; ++b) {
        MatOut<T>(u->data<T>() + b * m * u_cols, m, u_cols).setIdentity();
        MatOut<T>(vh->data<T>() + b * vh_rows * n, vh_rows, n).setIdentity();
      }
    });
    return;
  }
  SKIFF_DISPATCH_FLOATING(x.dtype(), T, {
    using Dense = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    for (int64_t b = 0, nb = batch_count(xs); b < nb; ++b) {
      const Dense a = MatIn<T>(x.data<T>() + b * m * n, m, n);
      const Eigen::BDCSVD<Dense> d(a, options);
      MatOut<T>(u->data<T>() + b * m * u_cols, m, u_cols) = d.matrixU();
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(s->data<T>() + b * k, k) = d.singularValues();
      MatOut<T>(vh->data<T>() + b * vh_rows * n, vh_rows, n) = d.matrixV().transpose();
    }
  });
}

void svd_grad(const Tensor& u, const Tensor& s, const Tensor& vh, const Tensor* du,
              const Tensor* ds, const Tensor* dvh, Tensor* dx) {
  const int64_t m = u.dim(-2), n = vh.dim(-1), k = s.dim(-1);
  SKIFF_CHECK(u.dim(-1) == k && vh.dim(-2) == k,
              "svd_grad: the gradient needs full_matrices=False, got U ", u.shape(), " and VH ",
              vh.shape());
  Shape x_shape = batch_dims(u.shape());
  x_shape.push_back(m);
  x_shape.push_back(n);
  dx->resize(x_shape, u.dtype());
  SKIFF_DISPATCH_FLOATING(u.dtype(), T, {
    using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    Mat<T> inner(k, k), f(k, k), skew(k, k), left(m, k), right(k, n);
    for (int64_t b = 0, nb = batch_count(u.shape()); b < nb; ++b) {
      MatIn<T> ub(u.data<T>() + b * m * k, m, k), vhb(vh.data<T>() + b * k * n, k, n);
      const Eigen::Map<const Vec> sb(s.data<T>() + b * k, k);
      inner.setZero();
      if (ds) inner.diagonal() = Eigen::Map<const Vec>(ds->data<T>() + b * k, k);
      if (du || dvh) {
        for (int64_t i = 0; i < k; ++i) {
          for (int64_t j = 0; j < k; ++j) {
            f(i, j) = i == j ? T(0) : T(1) / (sb[j] * sb[j] - sb[i] * sb[i]);
          }
        }
      }
      MatOut<T> d(dx->data<T>() + b * m * n, m, n);
      d.setZero();
      if (du) {
        MatIn<T> dub(du->data<T>() + b * m * k, m, k);
        skew = ub.transpose() * dub;
        inner += (f.array() * (skew - skew.transpose()).array()).matrix() * sb.asDiagonal();
        left = dub - ub * (ub.transpose() * dub);
        d += left * sb.cwiseInverse().asDiagonal() * vhb;
      }
      if (dvh) {
        MatIn<T> dvhb(dvh->data<T>() + b * k * n, k, n);
        skew = vhb * dvhb.transpose();
        inner += sb.asDiagonal() * (f.array() * (skew - skew.transpose()).array()).matrix();
        right = dvhb - (dvhb * vhb.transpose()) * vhb;
        d += ub * sb.cwiseInverse().asDiagonal() * right;
      }
      d += ub * inner * vhb;
    }
  });
}

}  // namespace skiff::kernels
