// matmul: values against a float64 reference written here (1-D operands, broadcast batch
// dims, every transpose combination, tiny / direct / row-times-matrix / oneDNN / blocked
// sizes) in f32 and f64; gradients by finite differences; shape inference with unknown dims;
// errors.
#include "skiff/kernels/cpu/matmul.h"
#include "skiff/kernels/cpu/gemm.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

// Element (batch index b of the broadcast batch, row i, column j) of an operand stored
// as [batch..., r, c] (or 1-D), reading batch dims of size 1 as broadcast.
double at(const Tensor& t, const std::vector<int64_t>& batch_idx, int64_t i, int64_t j) {
  const Shape& s = t.shape();
  if (s.rank() == 1) return t.data<double>()[i + j];  // one of i, j is 0
  const int batch_rank = s.rank() - 2;
  int64_t off = 0;
  for (int d = 0; d < batch_rank; ++d) {
    const int64_t idx = batch_idx[batch_idx.size() - batch_rank + d];
    off = off * s[d] + (s[d] == 1 ? 0 : idx);
  }
  return t.data<double>()[(off * s[batch_rank] + i) * s[batch_rank + 1] + j];
}

// numpy matmul in float64, straight from the definition.
Tensor reference_matmul(const Tensor& x, const Tensor& y, bool tx, bool ty) {
  const Shape out_shape = kernels::matmul_shape(x.shape(), y.shape(), tx, ty);
  const Tensor a = to_f64(x), b = to_f64(y);
  const bool xv = x.rank() == 1, yv = y.rank() == 1;
  tx = tx && !xv;
  ty = ty && !yv;
  const int64_t m = xv ? 1 : x.dim(tx ? -1 : -2), k = xv ? x.dim(0) : x.dim(tx ? -2 : -1);
  const int64_t n = yv ? 1 : y.dim(ty ? -2 : -1);
  const int batch_rank = out_shape.rank() - (xv ? 0 : 1) - (yv ? 0 : 1);
  Tensor out = Tensor::empty(out_shape, DType::kF64);
  std::vector<int64_t> idx(batch_rank, 0);
  int64_t pos = 0;
  const int64_t batches = m * n == 0 ? 0 : out.numel() / (m * n);
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t rest = bi;
    for (int d = batch_rank - 1; d >= 0; --d) {
      idx[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const double xa = xv ? at(a, idx, 0, kk) : (tx ? at(a, idx, kk, i) : at(a, idx, i, kk));
          const double yb = yv ? at(b, idx, kk, 0) : (ty ? at(b, idx, j, kk) : at(b, idx, kk, j));
          s += xa * yb;
        }
        out.data<double>()[pos++] = s;
      }
    }
  }
  return out;
}

struct Case {
  Shape x, y;
  bool tx = false, ty = false;
};

std::string describe(const Case& c) {
  return str_cat("X ", c.x, c.tx ? "^T" : "", " Y ", c.y, c.ty ? "^T" : "");
}

OpTest matmul_op(const Tensor& x, const Tensor& y, bool tx, bool ty) {
  OpTest t("matmul");
  t.input("X", x).input("Y", y).attr("trans_x", tx).attr("trans_y", ty);
  return t;
}

TEST(MatmulOp, ForwardMatchesReference) {
  const Case cases[] = {
      {{2, 3}, {3, 4}},
      {{1, 16}, {16, 16}},        // the W1 step: direct loop
      {{3}, {3}},                 // dot product: rank-0 result
      {{3}, {3, 4}},              // vector x matrix
      {{2, 3}, {3}},              // matrix x vector
      {{2, 5, 3}, {3, 4}},        // batch x matrix (folded into one product)
      {{5, 3}, {2, 3, 4}},        // matrix x batch
      {{2, 1, 4, 3}, {3, 3, 5}},  // broadcast on both sides
      {{3, 2}, {4, 3}, true, true},
      {{2, 3, 4}, {2, 5, 3}, true, true},
      {{4, 3}, {4, 5}, true, false},
      {{3, 4}, {5, 4}, false, true},
      {{3}, {2, 3, 4}},                       // vector against a batch
      {{7, 19}, {19, 23}},                    // odd sizes: vector tails
      {{5, 0}, {0, 4}},                       // empty contraction: zeros
      {{0, 3}, {3, 4}},                       // empty result
      {{64, 300}, {300, 200}},                // oneDNN (f32) / blocked loops (f64)
      {{130, 260}, {270, 260}, false, true},  // blocked loops with edge tiles
      {{300, 64}, {300, 100}, true, false},
      {{4, 40, 50}, {1, 50, 60}},  // batched, above the direct threshold
      {{3, 1, 40, 30}, {2, 50, 40}, true, true},
      {{1, 784}, {784, 512}},                // one row times a matrix (batch-1 inference)
      {{784}, {784, 1100}},                  // a vector: column blocks and a tail
      {{300, 1}, {300, 2000}, true, false},  // a transposed column is one row too
      {{1, 3000}, {3000, 2000}},             // split across threads
      {{512, 256}, {256, 1}},                // one column: a dot product per row
      {{512, 256}, {512, 1}, true, false},   // one column of a transposed A: a row times A
      {{300, 70}, {1, 70}, false, true},     // one column given as a row of B^T
      {{4100, 1030}, {1030, 1}},             // one column, rows split across threads
  };
  for (DType dtype : kFloatTypes) {
    for (const Case& c : cases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", describe(c)));
      Tensor x = random_tensor(c.x, dtype, 1), y = random_tensor(c.y, dtype, 2);
      Tensor want = from_f64(reference_matmul(x, y, c.tx, c.ty), dtype);
      if (dtype == DType::kF32) {
        matmul_op(x, y, c.tx, c.ty).check_output("Out", want, 2e-5, 1e-4);
      } else {
        matmul_op(x, y, c.tx, c.ty).check_output("Out", want, 1e-12, 1e-12);
      }
    }
  }
}

TEST(MatmulOp, GradientsMatchFiniteDifferences) {
  const Case cases[] = {
      {{2, 3}, {3, 4}},          {{3}, {3}},       {{3}, {3, 4}}, {{2, 3}, {3}},
      {{2, 2, 3}, {3, 4}},        // Y broadcast over the batch: reduced by one product
      {{2, 3}, {2, 3, 4}},        // X broadcast over the batch
      {{2, 1, 2, 3}, {3, 3, 2}},  // both broadcast
      {{3}, {2, 3, 2}},          {{2, 3, 2}, {2}},
  };
  for (const Case& base : cases) {
    for (int flags = 0; flags < 4; ++flags) {
      Case c = base;
      c.tx = flags & 1;
      c.ty = flags & 2;
      // Store a >= 2-D operand transposed when its flag is set.
      if (c.tx && c.x.rank() >= 2) std::swap(c.x[c.x.rank() - 1], c.x[c.x.rank() - 2]);
      if (c.ty && c.y.rank() >= 2) std::swap(c.y[c.y.rank() - 1], c.y[c.y.rank() - 2]);
      SCOPED_TRACE(describe(c));
      matmul_op(random_tensor(c.x, DType::kF64, 3), random_tensor(c.y, DType::kF64, 4), c.tx, c.ty)
          .check_grad({"X", "Y"});
    }
  }
}

TEST(MatmulOp, GradOfOneInputOnly) {
  OpTest t = matmul_op(random_tensor({2, 3}, DType::kF64, 5), random_tensor({3, 2}, DType::kF64, 6),
                       false, false);
  t.check_grad({"X"});
  t.check_grad({"Y"});
}

TEST(MatmulOp, GradKernelInFloat32) {
  // matmul_grad directly: dX = dOut · Y^T and dY = X^T · dOut summed over the batch.
  Tensor x = random_tensor({3, 2, 4}, DType::kF32, 7), y = random_tensor({4, 5}, DType::kF32, 8);
  Tensor dout = random_tensor({3, 2, 5}, DType::kF32, 9);
  Tensor dx, dy;
  kernels::matmul_grad(x, y, dout, false, false, &dx, &dy);
  Tensor y_t = Tensor::empty({5, 4}, DType::kF32);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) y_t.data<float>()[j * 4 + i] = y.data<float>()[i * 5 + j];
  std::string why;
  EXPECT_TRUE(
      testing::all_close(to_f64(dx), reference_matmul(dout, y_t, false, false), 1e-5, 1e-5, &why))
      << why;
  Tensor x2 = x, g2 = dout;
  x2.reshape({6, 4});
  g2.reshape({6, 5});
  EXPECT_TRUE(
      testing::all_close(to_f64(dy), reference_matmul(x2, g2, true, false), 1e-5, 1e-5, &why))
      << why;
}

TEST(MatmulOp, OutputMayBeAnInput) {
  for (const Shape& xs : {Shape{3, 4}, Shape{2, 3, 4}}) {
    Tensor x = random_tensor(xs, DType::kF32, 10), y = random_tensor({4, 5}, DType::kF32, 11);
    Tensor want = from_f64(reference_matmul(x, y, false, false), DType::kF32);
    kernels::matmul(x, y, false, false, &x);  // x is overwritten by the product
    std::string why;
    EXPECT_TRUE(testing::all_close(x, want, 1e-5, 1e-5, &why)) << xs << ": " << why;
  }
}

TEST(MatmulOp, GemmRejectsBatchesThatDoNotBroadcast) {
  kernels::GemmProblem p;
  p.a_batch = {3};
  p.b_batch = {2};
  p.c_batch = {3};
  p.m = p.n = p.k = 2;
  std::vector<double> a(12), b(8), c(12);
  EXPECT_THROW(kernels::gemm(p, a.data(), b.data(), c.data()), Error);
}

TEST(MatmulOp, ShapeInferenceWithUnknownDims) {
  EXPECT_EQ(kernels::matmul_shape({-1, 16}, {16, 8}, false, false), Shape({-1, 8}));
  EXPECT_EQ(kernels::matmul_shape({-1, 3, 4}, {4, 5}, false, false), Shape({-1, 3, 5}));
  EXPECT_EQ(kernels::matmul_shape({2, -1}, {-1, 7}, false, false), Shape({2, 7}));
  EXPECT_EQ(kernels::matmul_shape({-1, 2, 3}, {4, 3, 5}, false, false), Shape({4, 2, 5}));
  EXPECT_EQ(kernels::matmul_shape({-1}, {-1}, false, false), Shape({}));
  EXPECT_EQ(kernels::matmul_shape({4, -1}, {5, 4}, true, true), Shape({-1, 5}));
}

TEST(MatmulOp, ErrorsNameBothShapes) {
  auto op = [](Shape x, Shape y, DType dy = DType::kF32, bool ty = false) {
    return matmul_op(random_tensor(x, DType::kF32, 1), random_tensor(y, dy, 2), false, ty);
  };
  EXPECT_THROW(op({2, 3}, {4, 5}).run(), Error);
  expect_error(op({2, 3}, {4, 5}), {"[2, 3]", "[4, 5]"});
  expect_error(op({2, 3}, {5, 4}, DType::kF32, true), {"[2, 3]", "[5, 4]", "trans_y=true"});
  expect_error(op({2, 3, 4}, {3, 4, 5}), {"[2, 3, 4]", "[3, 4, 5]", "broadcast"});
  expect_error(op({}, {3}), {"rank"});
  expect_error(op({2, 3}, {3, 4}, DType::kF64), {"float32", "float64"});
  EXPECT_THROW(kernels::matmul_shape({2, 3}, {-1, 4, 5}, false, false), Error);
}

}  // namespace
}  // namespace skiff
