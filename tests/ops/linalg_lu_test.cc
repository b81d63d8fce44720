// lu, lu_unpack, matrix_exp: LAPACK's packed factors and 1-based pivots for a hand-worked
// matrix, P L U == X for square, wide and tall batches in f32 and f64, the info of a singular
// matrix, gradients by finite differences (all three shapes), the permutation and triangles
// lu_unpack returns, matrix_exp against exact exponentials (diagonal, rotation, nilpotent) and
// its gradient, and the errors.
#include <gtest/gtest.h>

#include <cmath>
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

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

// Matrix b of a float64 tensor [..., r, c].
Mat matrix(const Tensor& t, int64_t b) {
  const int64_t r = t.dim(-2), c = t.dim(-1);
  return Eigen::Map<const Mat>(t.data<double>() + b * r * c, r, c);
}

TEST(LinalgLuOp, PacksFactorsAndPivotsAsLapack) {
  // [[1, 2], [3, 4], [5, 6]]: rows 3 then 3 swapped in; L = [[1, 0], [.2, 1], [.6, .5]],
  // U = [[5, 6], [0, .8]]
  for (DType dt : {DType::kF32, DType::kF64}) {
    OpTest t("lu");
    t.input("X", values({3, 2}, {1, 2, 3, 4, 5, 6}, dt))
        .output("Out")
        .output("Pivots")
        .output("Infos");
    t.check_output("Out", values({3, 2}, {5, 6, 0.2, 0.8, 0.6, 0.5}, dt), 1e-6, 1e-6);
    t.check_output("Pivots", values({2}, {3, 3}, DType::kI32), 0, 0);
    t.check_output("Infos", values({}, {0}, DType::kI32), 0, 0);
  }
  OpTest singular("lu");
  singular.input("X", values({2, 2}, {1, 2, 2, 4}, DType::kF64))
      .output("Out")
      .output("Pivots")
      .output("Infos");
  singular.check_output("Out", values({2, 2}, {2, 4, 0.5, 0}, DType::kF64), 0, 0);
  singular.check_output("Infos", values({}, {2}, DType::kI32), 0, 0);
}

TEST(LinalgLuOp, UnpackedFactorsRebuildX) {
  for (const Shape& shape : {Shape{2, 4, 4}, Shape{3, 5}, Shape{2, 5, 3}}) {
    for (DType dt : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(dtype_name(dt));
      const Tensor x = random_tensor(shape, dt, 3);
      OpTest f("lu");
      f.input("X", x).output("Out").output("Pivots").output("Infos");
      const auto factors = f.run();
      OpTest u("lu_unpack");
      u.input("X", factors.at("Out")[0]).input("Pivots", factors.at("Pivots")[0]);
      u.output("Pmat").output("L").output("U");
      const auto parts = u.run();
      const Tensor p = to_f64(parts.at("Pmat")[0]), l = to_f64(parts.at("L")[0]),
                   up = to_f64(parts.at("U")[0]), x64 = to_f64(x);
      for (int64_t b = 0; b < x.numel() / (shape.dim(-1) * shape.dim(-2)); ++b) {
        const Mat lm = matrix(l, b), um = matrix(up, b);
        EXPECT_TRUE((matrix(p, b) * lm * um).isApprox(matrix(x64, b), 1e-5));
        EXPECT_TRUE(lm.isLowerTriangular() && um.isUpperTriangular());
        EXPECT_TRUE((lm.diagonal().array() == 1.0).all());
        EXPECT_LE(lm.cwiseAbs().maxCoeff(), 1.0);  // partial pivoting bounds L
      }
    }
  }
}

TEST(LinalgLuOp, Gradients) {
  for (const Shape& shape : {Shape{2, 4, 4}, Shape{3, 5}, Shape{5, 3}}) {
    OpTest t("lu");
    t.input("X", random_tensor(shape, DType::kF64, 5))
        .output("Out")
        .output("Pivots")
        .output("Infos");
    t.check_grad({"X"});
    for (const char* part : {"L", "U"}) {
      OpTest f("lu");
      f.input("X", random_tensor(shape, DType::kF64, 6))
          .output("Out")
          .output("Pivots")
          .output("Infos");
      const auto factors = f.run();
      OpTest u("lu_unpack");
      u.input("X", factors.at("Out")[0]).input("Pivots", factors.at("Pivots")[0]);
      u.output("Pmat").output("L").output("U");
      u.check_grad({"X"}, part);
    }
  }
}

TEST(LinalgLuOp, UnpackBuildsThePermutation) {
  OpTest u("lu_unpack");
  u.input("X", values({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, DType::kF32))
      .input("Pivots", values({3}, {3, 3, 3}, DType::kI32))
      .output("Pmat")
      .output("L")
      .output("U");
  // swaps (0 2), (1 2): rows of P^T A are A's rows 2, 0, 1
  u.check_output("Pmat", values({3, 3}, {0, 1, 0, 0, 0, 1, 1, 0, 0}, DType::kF32), 0, 0);
  u.check_output("L", values({3, 3}, {1, 0, 0, 4, 1, 0, 7, 8, 1}, DType::kF32), 0, 0);
  u.check_output("U", values({3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9}, DType::kF32), 0, 0);
}

TEST(LinalgLuOp, MatrixExpMatchesExactExponentials) {
  const double c = std::cos(1.2), s = std::sin(1.2);
  for (DType dt : {DType::kF32, DType::kF64}) {
    OpTest t("matrix_exp");
    // diag(1, 2); the rotation generator [[0, 1.2], [-1.2, 0]]; a nilpotent [[0, 3], [0, 0]];
    // a large diagonal scaled and squared
    t.input("X", values({4, 2, 2}, {1, 0, 0, 2, 0, 1.2, -1.2, 0, 0, 3, 0, 0, 20, 0, 0, -3}, dt));
    t.check_output("Out",
                   values({4, 2, 2},
                          {std::exp(1.0), 0, 0, std::exp(2.0), c, s, -s, c, 1, 3, 0, 1,
                           std::exp(20.0), 0, 0, std::exp(-3.0)},
                          dt),
                   1e-12, dt == DType::kF64 ? 1e-12 : 1e-6);
  }
  OpTest g("matrix_exp");
  g.input("X", random_tensor({2, 3, 3}, DType::kF64, 9));
  g.check_grad({"X"});
  OpTest big("matrix_exp");  // past the scaling threshold
  big.input("X", random_tensor({3, 3}, DType::kF64, 10, -4, 4));
  big.check_grad({"X"}, "Out", 1e-6, 1e-5, 1e-5);
}

TEST(LinalgLuOp, Errors) {
  OpTest lu("lu");
  expect_error(lu.input("X", values({3}, {1, 2, 3}, DType::kF32)), {"lu", "[..., m, n]"});
  OpTest ints("lu");
  expect_error(ints.input("X", values({2, 2}, {1, 2, 3, 4}, DType::kI64)),
               {"lu", "float32 or float64", "int64"});
  OpTest unpack("lu_unpack");
  expect_error(unpack.input("X", values({2, 2}, {1, 2, 3, 4}, DType::kF32))
                   .input("Pivots", values({2}, {3, 1}, DType::kI32)),
               {"lu_unpack", "pivot 3", "[1, 2]"});
  OpTest exp("matrix_exp");
  expect_error(exp.input("X", values({2, 3}, {1, 2, 3, 4, 5, 6}, DType::kF32)),
               {"matrix_exp", "square"});
}

}  // namespace
}  // namespace skiff
