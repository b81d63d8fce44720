// inverse, determinant, slogdet, solve, triangular_solve, cholesky, eigh, qr, svd: values against
// float64 references (identities checked in double, hand-computed determinants) in f32 and
// f64, gradients by finite differences (symmetric perturbations for the ops that read one
// triangle of a symmetric matrix), the singular / non-positive-definite errors, and empty
// matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/eigen.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

// Matrix b of a float64 tensor [..., r, c].
Mat matrix(const Tensor& t, int64_t b) {
  const int64_t r = t.dim(-2), c = t.dim(-1);
  return Eigen::Map<const Mat>(t.data<double>() + b * r * c, r, c);
}

// A well-conditioned batch [batch..., n, n]: random plus n on the diagonal.
Tensor well_conditioned(Shape shape, uint64_t seed) {
  Tensor t = random_tensor(shape, DType::kF64, seed);
  const int64_t n = shape.dim(-1);
  for (int64_t b = 0; b < t.numel() / (n * n); ++b) {
    for (int64_t i = 0; i < n; ++i) t.data<double>()[b * n * n + i * n + i] += n;
  }
  return t;
}

// A symmetric positive definite batch: M M^T + n I.
Tensor spd(Shape shape, uint64_t seed) {
  Tensor m = random_tensor(shape, DType::kF64, seed);
  Tensor out = Tensor::empty(shape, DType::kF64);
  const int64_t n = shape.dim(-1);
  for (int64_t b = 0; b < m.numel() / (n * n); ++b) {
    const Mat a = matrix(m, b);
    Eigen::Map<Mat>(out.data<double>() + b * n * n, n, n) =
        a * a.transpose() + double(n) * Mat::Identity(n, n);
  }
  return out;
}

Tensor output_f64(const OpTest& t, const std::string& slot) { return to_f64(t.run().at(slot)[0]); }

double tol(DType dt) { return dt == DType::kF32 ? 2e-4 : 1e-10; }

TEST(Inverse, TimesXIsIdentityAndTwoByTwoByHand) {
  for (DType dt : kFloatTypes) {
    const Tensor x = from_f64(well_conditioned({2, 3, 4, 4}, 1), dt);
    const Tensor inv = output_f64(OpTest("inverse").input("X", x), "Out");
    const Tensor xd = to_f64(x);
    for (int64_t b = 0; b < 6; ++b) {
      EXPECT_TRUE((matrix(xd, b) * matrix(inv, b)).isApprox(Mat::Identity(4, 4), tol(dt)));
    }
    const Tensor m = from_f64(Tensor::from_vector<double>({2, 2}, {4, 7, 2, 6}), dt);
    OpTest("inverse").input("X", m).check_output(
        "Out", from_f64(Tensor::from_vector<double>({2, 2}, {0.6, -0.7, -0.2, 0.4}), dt), 1e-6);
  }
  OpTest("inverse").input("X", well_conditioned({2, 3, 3}, 2)).check_grad({"X"});
}

TEST(Inverse, SingularMatrixNamesTheBatchIndex) {
  Tensor x = well_conditioned({3, 2, 2}, 3);
  for (int i = 0; i < 4; ++i) x.data<double>()[8 + i] = 1.0;  // batch 2: all ones
  expect_error(OpTest("inverse").input("X", x), {"inverse", "batch index 2", "singular"});
  expect_error(OpTest("inverse").input("X", random_tensor({2, 3}, DType::kF64, 1)),
               {"inverse", "square"});
}

TEST(Determinant, ByHandAndGradients) {
  for (DType dt : kFloatTypes) {
    const Tensor x =
        from_f64(Tensor::from_vector<double>({2, 3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 2,    // det 6
                                                         1, 2, 3, 4, 5, 6, 7, 8, 9}),  // det 0
                 dt);
    OpTest("determinant")
        .input("X", x)
        .check_output("Out", from_f64(Tensor::from_vector<double>({2}, {6, 0}), dt), 1e-5);
  }
  OpTest("determinant").input("X", well_conditioned({2, 3, 3}, 4)).check_grad({"X"});
}

TEST(Slogdet, SignAndLogAbsOfANegativeDeterminant) {
  for (DType dt : kFloatTypes) {
    // det [[0, 2], [3, 1]] = -6; det of a singular matrix: sign 0, log -inf.
    const Tensor x = from_f64(Tensor::from_vector<double>({2, 2, 2}, {0, 2, 3, 1, 1, 2, 2, 4}), dt);
    OpTest t("slogdet");
    t.input("X", x).output("Sign").output("LogAbsDet");
    const Tensor sign = output_f64(t, "Sign"), log_abs = output_f64(t, "LogAbsDet");
    EXPECT_EQ(sign.data<double>()[0], -1.0);
    EXPECT_NEAR(log_abs.data<double>()[0], std::log(6.0), 1e-6);
    EXPECT_EQ(sign.data<double>()[1], 0.0);
    EXPECT_TRUE(std::isinf(log_abs.data<double>()[1]) && log_abs.data<double>()[1] < 0);
  }
  OpTest t("slogdet");
  t.input("X", well_conditioned({3, 3, 3}, 5)).output("Sign").output("LogAbsDet");
  t.check_grad({"X"}, "LogAbsDet");
}

TEST(Solve, XTimesOutIsYAndGradients) {
  for (DType dt : kFloatTypes) {
    const Tensor x = from_f64(well_conditioned({2, 4, 4}, 6), dt);
    const Tensor y = from_f64(random_tensor({2, 4, 3}, DType::kF64, 7), dt);
    const Tensor out = output_f64(OpTest("solve").input("X", x).input("Y", y), "Out");
    for (int64_t b = 0; b < 2; ++b) {
      EXPECT_TRUE((matrix(to_f64(x), b) * matrix(out, b)).isApprox(matrix(to_f64(y), b), tol(dt)));
    }
  }
  OpTest("solve")
      .input("X", well_conditioned({2, 3, 3}, 8))
      .input("Y", random_tensor({2, 3, 2}, DType::kF64, 9))
      .check_grad({"X", "Y"});
  Tensor singular = Tensor::zeros({2, 2}, DType::kF64);
  expect_error(
      OpTest("solve").input("X", singular).input("Y", random_tensor({2, 1}, DType::kF64, 1)),
      {"solve", "batch index 0", "singular"});
  expect_error(
      OpTest("solve").input("X", singular).input("Y", random_tensor({3, 1}, DType::kF64, 1)),
      {"solve", "[3, 1]"});
}

TEST(TriangularSolve, EveryModeAgainstDenseSolveAndGradients) {
  for (bool upper : {true, false}) {
    for (bool transpose : {false, true}) {
      for (bool unit : {false, true}) {
        const Tensor x = well_conditioned({2, 4, 4}, 10);
        const Tensor y = random_tensor({2, 4, 2}, DType::kF64, 11);
        OpTest t("triangular_solve");
        t.input("X", x)
            .input("Y", y)
            .attr("upper", upper)
            .attr("transpose", transpose)
            .attr("unitriangular", unit);
        const Tensor out = output_f64(t, "Out");
        for (int64_t b = 0; b < 2; ++b) {
          Mat a = upper ? Mat(matrix(x, b).triangularView<Eigen::Upper>())
                        : Mat(matrix(x, b).triangularView<Eigen::Lower>());
          if (unit) a.diagonal().setOnes();
          if (transpose) a.transposeInPlace();
          EXPECT_TRUE((a * matrix(out, b)).isApprox(matrix(y, b), 1e-10))
              << upper << transpose << unit;
        }
        t.check_grad({"X", "Y"});
      }
    }
  }
  OpTest f32("triangular_solve");
  f32.input("X", from_f64(well_conditioned({3, 3}, 12), DType::kF32))
      .input("Y", from_f64(random_tensor({3, 1}, DType::kF64, 13), DType::kF32));
  EXPECT_EQ(f32.run().at("Out")[0].dtype(), DType::kF32);
  expect_error(OpTest("triangular_solve")
                   .input("X", Tensor::zeros({2, 2, 2}, DType::kF64))
                   .input("Y", random_tensor({2, 2, 1}, DType::kF64, 1)),
               {"triangular_solve", "batch index 0", "singular"});
}

// Checks grad_op's X@GRAD, from `slot` = op(a) and the cotangent w, against central
// differences of <w, op(a)> along symmetric perturbations of the symmetric a (the op reads
// one triangle). With align_columns, output columns are sign-aligned before differencing.
void check_symmetric_grad(const OpTest& fwd, const std::string& slot, const Tensor& a, OpTest grad,
                          bool align_columns = false) {
  const int64_t n = a.dim(-1);
  const Tensor base = output_f64(OpTest(fwd).input("X", a), slot);
  const Tensor w = random_tensor(base.shape(), DType::kF64, 99);
  const Tensor g = output_f64(grad.input(slot + "@GRAD", w).output("X@GRAD"), "X@GRAD");
  const double eps = 1e-6;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double side[2];
      for (int s = 0; s < 2; ++s) {
        Tensor p = Tensor::empty(a.shape(), DType::kF64);
        std::copy(a.data<double>(), a.data<double>() + a.numel(), p.data<double>());
        p.data<double>()[i * n + j] += s ? -eps : eps;
        if (i != j) p.data<double>()[j * n + i] += s ? -eps : eps;
        const Tensor o = output_f64(OpTest(fwd).input("X", p), slot);
        double dot = 0;
        const int64_t cols = o.dim(-1), rows = o.numel() / cols;
        for (int64_t c = 0; c < cols; ++c) {
          double align = 0;
          for (int64_t r = 0; r < rows; ++r) {
            align += o.data<double>()[r * cols + c] * base.data<double>()[r * cols + c];
          }
          const double sign = align_columns && align < 0 ? -1.0 : 1.0;
          for (int64_t r = 0; r < rows; ++r) {
            dot += sign * o.data<double>()[r * cols + c] * w.data<double>()[r * cols + c];
          }
        }
        side[s] = dot;
      }
      const double fd = (side[0] - side[1]) / (2 * eps);
      const double analytic =
          g.data<double>()[i * n + j] + (i != j ? g.data<double>()[j * n + i] : 0);
      EXPECT_NEAR(analytic, fd, 1e-6 + 1e-5 * std::abs(fd))
          << slot << " (" << i << ", " << j << ")";
    }
  }
}

TEST(Cholesky, FactorsAndSymmetricGradients) {
  for (DType dt : kFloatTypes) {
    for (bool upper : {false, true}) {
      const Tensor a = from_f64(spd({2, 4, 4}, 14), dt);
      const Tensor l = output_f64(OpTest("cholesky").input("X", a).attr("upper", upper), "Out");
      for (int64_t b = 0; b < 2; ++b) {
        const Mat f = matrix(l, b);
        const Mat rebuilt = upper ? Mat(f.transpose() * f) : Mat(f * f.transpose());
        EXPECT_TRUE(rebuilt.isApprox(matrix(to_f64(a), b), tol(dt)));
        const Mat lower_part = upper ? Mat(f.transpose()) : f;
        EXPECT_TRUE(lower_part.isApprox(Mat(lower_part.triangularView<Eigen::Lower>())));
      }
      // The factor checked above is the reference of a harness case (eager, compiled).
      OpTest("cholesky")
          .input("X", a)
          .attr("upper", upper)
          .check_output("Out", from_f64(l, dt), tol(dt));
    }
  }
  for (bool upper : {false, true}) {
    const Tensor a = spd({4, 4}, 15);
    const Tensor l = output_f64(OpTest("cholesky").input("X", a).attr("upper", upper), "Out");
    check_symmetric_grad(OpTest("cholesky").attr("upper", upper), "Out", a,
                         OpTest("cholesky_grad").input("Out", l).attr("upper", upper));
  }
  Tensor bad = spd({3, 3, 3}, 16);
  bad.data<double>()[9] = -1.0;  // batch 1 gets a negative leading entry
  expect_error(OpTest("cholesky").input("X", bad),
               {"cholesky", "batch index 1", "not positive definite"});
}

TEST(Eigh, DecompositionAndGradients) {
  for (DType dt : kFloatTypes) {
    for (const char* uplo : {"L", "U"}) {
      const Tensor a = from_f64(spd({2, 4, 4}, 17), dt);
      OpTest t("eigh");
      t.input("X", a).attr("UPLO", std::string(uplo)).output("Eigenvalues").output("Eigenvectors");
      const Tensor w = output_f64(t, "Eigenvalues"), v = output_f64(t, "Eigenvectors");
      ASSERT_EQ(w.shape(), Shape({2, 4}));
      for (int64_t b = 0; b < 2; ++b) {
        const Mat vb = matrix(v, b);
        const Eigen::Map<const Eigen::VectorXd> wb(w.data<double>() + b * 4, 4);
        EXPECT_TRUE((matrix(to_f64(a), b) * vb).isApprox(vb * wb.asDiagonal(), tol(dt)));
        for (int i = 0; i + 1 < 4; ++i) EXPECT_LE(wb[i], wb[i + 1]);
      }
      // The decomposition checked above is the reference of a harness case (eager, compiled).
      OpTest c("eigh");
      c.input("X", a).attr("UPLO", std::string(uplo)).output("Eigenvalues").output("Eigenvectors");
      c.check_output("Eigenvalues", from_f64(w, dt), tol(dt));
      c.check_output("Eigenvectors", from_f64(v, dt), tol(dt));
    }
  }
  const Tensor a = spd({4, 4}, 18);
  OpTest fwd("eigh");
  fwd.output("Eigenvalues").output("Eigenvectors");
  const auto outs = OpTest(fwd).input("X", a).run();
  const Tensor w = outs.at("Eigenvalues")[0], v = outs.at("Eigenvectors")[0];
  check_symmetric_grad(fwd, "Eigenvalues", a,
                       OpTest("eigh_grad")
                           .input("Eigenvalues", w)
                           .input("Eigenvectors", v)
                           .input("Eigenvectors@GRAD", Tensor::zeros({4, 4}, DType::kF64)));
  check_symmetric_grad(fwd, "Eigenvectors", a,
                       OpTest("eigh_grad")
                           .input("Eigenvalues", w)
                           .input("Eigenvectors", v)
                           .input("Eigenvalues@GRAD", Tensor::zeros({4}, DType::kF64)),
                       /*align_columns=*/true);
}

TEST(Qr, ReducedAndCompleteFactorsReproduceX) {
  const std::vector<Shape> shapes = {{2, 5, 3}, {3, 4}, {4, 4}};
  for (DType dt : kFloatTypes) {
    for (const Shape& shape : shapes) {
      for (const char* mode : {"reduced", "complete", "r"}) {
        const Tensor x = from_f64(random_tensor(shape, DType::kF64, 21), dt);
        OpTest t("qr");
        t.input("X", x).attr("mode", std::string(mode)).output("Q").output("R");
        const Tensor q = output_f64(t, "Q"), r = output_f64(t, "R");
        const int64_t m = shape.dim(-2), n = shape.dim(-1);
        const int64_t cols = std::string(mode) == "complete" ? m : std::min(m, n);
        ASSERT_EQ(q.dim(-2), m);
        ASSERT_EQ(q.dim(-1), cols);
        ASSERT_EQ(r.dim(-2), cols);
        ASSERT_EQ(r.dim(-1), n);
        const Tensor xd = to_f64(x);
        for (int64_t b = 0; b < xd.numel() / (m * n); ++b) {
          const Mat qb = matrix(q, b), rb = matrix(r, b);
          EXPECT_TRUE((qb.transpose() * qb).isApprox(Mat::Identity(cols, cols), tol(dt)));
          EXPECT_TRUE((qb * rb).isApprox(matrix(xd, b), tol(dt)));
          for (int64_t i = 0; i < cols; ++i) {
            for (int64_t j = 0; j < std::min(i, n); ++j) EXPECT_EQ(rb(i, j), 0.0);
          }
        }
      }
    }
  }
}

TEST(Qr, GradientsOfQAndRForTallAndSquare) {
  for (const Shape& shape : {Shape({2, 5, 3}), Shape({3, 3})}) {
    const Tensor x = random_tensor(shape, DType::kF64, 22);
    for (const char* slot : {"Q", "R"}) {
      OpTest("qr").input("X", x).output("Q").output("R").check_grad({"X"}, slot);
    }
  }
  expect_error(OpTest("qr")
                   .input("X", random_tensor({3, 3}, DType::kF64, 1))
                   .attr("mode", std::string("full"))
                   .output("Q")
                   .output("R"),
               {"qr", "mode", "full"});
}

TEST(Svd, FactorsReproduceXWithDescendingValues) {
  const std::vector<Shape> shapes = {{2, 5, 3}, {3, 4}, {4, 4}};
  for (DType dt : kFloatTypes) {
    for (const Shape& shape : shapes) {
      for (bool full : {false, true}) {
        const Tensor x = from_f64(random_tensor(shape, DType::kF64, 31), dt);
        OpTest t("svd");
        t.input("X", x).attr("full_matrices", full).output("U").output("S").output("VH");
        const auto outs = t.run();
        const Tensor u = to_f64(outs.at("U")[0]), s = to_f64(outs.at("S")[0]);
        const Tensor vh = to_f64(outs.at("VH")[0]);
        const int64_t m = shape.dim(-2), n = shape.dim(-1), k = std::min(m, n);
        ASSERT_EQ(u.dim(-1), full ? m : k);
        ASSERT_EQ(vh.dim(-2), full ? n : k);
        ASSERT_EQ(s.dim(-1), k);
        const Tensor xd = to_f64(x);
        for (int64_t b = 0; b < xd.numel() / (m * n); ++b) {
          const Mat ub = matrix(u, b), vhb = matrix(vh, b);
          const Eigen::Map<const Eigen::VectorXd> sb(s.data<double>() + b * k, k);
          for (int64_t i = 0; i + 1 < k; ++i) EXPECT_GE(sb[i], sb[i + 1]);
          EXPECT_TRUE((ub.transpose() * ub).isApprox(Mat::Identity(ub.cols(), ub.cols()), tol(dt)));
          EXPECT_TRUE(
              (vhb * vhb.transpose()).isApprox(Mat::Identity(vhb.rows(), vhb.rows()), tol(dt)));
          const Mat x_back = ub.leftCols(k) * sb.asDiagonal() * vhb.topRows(k);
          EXPECT_TRUE(x_back.isApprox(matrix(xd, b), tol(dt)));
        }
      }
    }
  }
}

TEST(Svd, GradientsOfEachFactor) {
  for (const Shape& shape : {Shape({2, 5, 3}), Shape({3, 4}), Shape({3, 3})}) {
    const Tensor x = random_tensor(shape, DType::kF64, 32);
    for (const char* slot : {"U", "S", "VH"}) {
      OpTest("svd").input("X", x).output("U").output("S").output("VH").check_grad({"X"}, slot);
    }
  }
}

// Empty matrices get numpy's answers: no values, identities where a full factor must be
// orthonormal, determinant 1 (the empty product), never a crash.
TEST(EmptyMatrices, DecompositionsGiveNumpysAnswers) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(dtype_name(dt));
    auto shapes = [](const std::map<std::string, std::vector<Tensor>>& outs) {
      std::vector<Shape> s;
      for (const auto& [slot, values] : outs) s.push_back(values[0].shape());
      return s;  // by slot name: U, S, VH / Q, R / Eigenvalues, Eigenvectors
    };
    for (const Shape& x : {Shape{0, 3}, Shape{3, 0}, Shape{2, 0, 3}}) {
      SCOPED_TRACE(x.str());
      const int64_t m = x.dim(-2), n = x.dim(-1);
      const Shape batch = x.rank() == 3 ? Shape{x[0]} : Shape{};
      auto with = [&](Shape s, std::initializer_list<int64_t> last) {
        for (int64_t d : last) s.push_back(d);
        return s;
      };
      OpTest thin("svd");
      thin.input("X", Tensor::zeros(x, dt)).output("U").output("S").output("VH");
      EXPECT_EQ(shapes(thin.run()),
                (std::vector<Shape>{with(batch, {0}), with(batch, {m, 0}), with(batch, {0, n})}));
      OpTest full("svd");
      full.input("X", Tensor::zeros(x, dt)).attr("full_matrices", true);
      full.output("U").output("S").output("VH");
      const auto outs = full.run();
      const Tensor u = to_f64(outs.at("U")[0]), vh = to_f64(outs.at("VH")[0]);
      for (int64_t b = 0; b < batch.numel(); ++b) {
        EXPECT_TRUE(matrix(u, b).isApprox(Mat::Identity(m, m)) || m == 0);
        EXPECT_TRUE(matrix(vh, b).isApprox(Mat::Identity(n, n)) || n == 0);
      }
      OpTest qr("qr");
      qr.input("X", Tensor::zeros(x, dt)).output("Q").output("R");
      const int64_t k = std::min(m, n);
      EXPECT_EQ(shapes(qr.run()), (std::vector<Shape>{with(batch, {m, k}), with(batch, {k, n})}));
    }
    OpTest eigh("eigh");
    eigh.input("X", Tensor::zeros({0, 0}, dt)).output("Eigenvalues").output("Eigenvectors");
    EXPECT_EQ(shapes(eigh.run()), (std::vector<Shape>{Shape{0}, Shape{0, 0}}));
    OpTest det("determinant");
    det.input("X", Tensor::zeros({2, 0, 0}, dt))
        .check_output("Out", from_f64(Tensor::from_vector<double>({2}, {1, 1}), dt));
    OpTest inv("inverse");
    inv.input("X", Tensor::zeros({0, 0}, dt)).check_output("Out", Tensor::zeros({0, 0}, dt));
  }
}

TEST(Eigh, ComplexHermitian) {
  using CMat = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int n = 4;
  const Tensor r = random_tensor({n, n}, DType::kC128, 31);
  CMat a = Eigen::Map<const CMat>(r.data<std::complex<double>>(), n, n);
  a = (a + a.adjoint()).eval();  // Hermitian
  for (const char* uplo : {"L", "U"}) {
    SCOPED_TRACE(uplo);
    CMat given = a;  // the other triangle holds noise the op must not read
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (std::string(uplo) == "L" ? j > i : j < i) given(i, j) = std::complex<double>(9, 9);
    Tensor x = Tensor::empty({n, n}, DType::kC128);
    Eigen::Map<CMat>(x.data<std::complex<double>>(), n, n) = given;
    OpTest t("eigh");
    t.input("X", x).attr("UPLO", std::string(uplo)).output("Eigenvalues").output("Eigenvectors");
    auto out = t.run();
    const Tensor& w = out["Eigenvalues"][0];
    const Tensor& v = out["Eigenvectors"][0];
    ASSERT_EQ(w.dtype(), DType::kF64);
    ASSERT_EQ(v.dtype(), DType::kC128);
    const CMat vm = Eigen::Map<const CMat>(v.data<std::complex<double>>(), n, n);
    const Eigen::VectorXd wv = Eigen::Map<const Eigen::VectorXd>(w.data<double>(), n);
    EXPECT_LT((a * vm - vm * wv.cast<std::complex<double>>().asDiagonal()).norm(), 1e-10);
    EXPECT_LT((vm.adjoint() * vm - CMat::Identity(n, n)).norm(), 1e-10);
    for (int i = 1; i < n; ++i) EXPECT_LE(wv[i - 1], wv[i]);
  }
}

TEST(Eig, EigenpairsOfGeneralMatricesRealAndComplex) {
  using CMat = Eigen::Matrix<std::complex<double>, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int n = 5;
  for (DType dtype : {DType::kF64, DType::kC128}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x = random_tensor({2, n, n}, dtype, 41);
    OpTest t("eig");
    t.input("X", x).output("Eigenvalues").output("Eigenvectors");
    auto out = t.run();
    const Tensor& w = out["Eigenvalues"][0];
    const Tensor& v = out["Eigenvectors"][0];
    ASSERT_EQ(w.dtype(), DType::kC128);
    ASSERT_EQ(w.shape(), Shape({2, n}));
    for (int64_t b = 0; b < 2; ++b) {
      CMat a(n, n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          a(i, j) = dtype == DType::kF64
                        ? std::complex<double>(x.data<double>()[b * n * n + i * n + j])
                        : x.data<std::complex<double>>()[b * n * n + i * n + j];
      const CMat vm = Eigen::Map<const CMat>(v.data<std::complex<double>>() + b * n * n, n, n);
      const Eigen::VectorXcd wv =
          Eigen::Map<const Eigen::VectorXcd>(w.data<std::complex<double>>() + b * n, n);
      EXPECT_LT((a * vm - vm * wv.asDiagonal()).norm(), 1e-9);
      for (int j = 0; j < n; ++j) {
        EXPECT_NEAR(vm.col(j).norm(), 1.0, 1e-12);
        Eigen::Index top = 0;
        vm.col(j).cwiseAbs().maxCoeff(&top);
        EXPECT_NEAR(vm(top, j).imag(), 0.0, 1e-12);
        EXPECT_GT(vm(top, j).real(), 0.0);
      }
    }
  }
}

}  // namespace
}  // namespace skiff
