// where: values in every dtype against an index reference with numpy broadcasting of
// all three operands (and the threaded path), shapes declared over -1 dims, gradients
// for X and Y (summed over broadcast dims), and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::declared_shape;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

OpTest where_op(const Tensor& c, const Tensor& x, const Tensor& y) {
  OpTest t("where");
  t.input("Condition", c).input("X", x).input("Y", y);
  return t;
}

// The flat offset in `s` (aligned with out's last dims, size-1 dims repeated) of
// out's element k.
int64_t broadcast_offset(const Shape& s, const Shape& out, int64_t k) {
  int64_t off = 0, scale = 1;
  for (int d = out.rank() - 1, e = s.rank() - 1; d >= 0; --d, --e) {
    const int64_t i = k % out[d];
    k /= out[d];
    if (e < 0) continue;
    if (s[e] != 1) off += i * scale;
    scale *= s[e];
  }
  return off;
}

Tensor where_reference(const Tensor& c, const Tensor& x, const Tensor& y, const Shape& out) {
  const Tensor xs = to_f64(x), ys = to_f64(y);
  Tensor r = Tensor::empty(out, DType::kF64);
  for (int64_t k = 0; k < r.numel(); ++k) {
    const bool pick = c.data<bool>()[broadcast_offset(c.shape(), out, k)];
    r.data<double>()[k] = pick ? xs.data<double>()[broadcast_offset(x.shape(), out, k)]
                               : ys.data<double>()[broadcast_offset(y.shape(), out, k)];
  }
  return from_f64(r, x.dtype());
}

TEST(WhereOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape c, x, y, out;
  };
  const Case cases[] = {
      {{2, 3}, {2, 3}, {2, 3}, {2, 3}},
      {{4, 1}, {4, 3}, {3}, {4, 3}},
      {{3}, {}, {2, 3}, {2, 3}},
      {{2, 1, 4}, {3, 1}, {1, 3, 4}, {2, 3, 4}},
      {{200, 1}, {200, 300}, {300}, {200, 300}},
      {{1}, {5}, {5}, {5}},
  };
  for (const Case& c : cases) {
    for (DType dtype : kAllDTypes) {
      SCOPED_TRACE(str_cat(c.c, " ", c.x, " ", c.y, " ", dtype_name(dtype)));
      Tensor cond = random_tensor(c.c, DType::kBool, 1);
      Tensor x = random_tensor(c.x, dtype, 2, -9, 9), y = random_tensor(c.y, dtype, 3, -9, 9);
      where_op(cond, x, y).check_output("Out", where_reference(cond, x, y, c.out), 0, 0);
    }
  }
}

TEST(WhereOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("where",
                           {{"Condition", DType::kBool, {-1, 1}},
                            {"X", DType::kF32, {-1, 3}},
                            {"Y", DType::kF32, {3}}},
                           {}),
            Shape({-1, 3}));
}

TEST(WhereOp, GradientsMatchFiniteDifferences) {
  where_op(random_tensor({4, 1}, DType::kBool, 4), random_tensor({4, 3}, DType::kF64, 5),
           random_tensor({3}, DType::kF64, 6))
      .check_grad({"X", "Y"});
  where_op(random_tensor({2, 3}, DType::kBool, 7), random_tensor({2, 1}, DType::kF64, 8),
           random_tensor({2, 3}, DType::kF64, 9))
      .check_grad({"X", "Y"});
}

TEST(WhereOp, Errors) {
  Tensor x = random_tensor({2, 3}, DType::kF32, 10);
  expect_error(where_op(random_tensor({2, 3}, DType::kF32, 11), x, x),
               {"where", "Condition must be bool", "float32"});
  expect_error(
      where_op(random_tensor({2, 3}, DType::kBool, 12), x, random_tensor({2, 3}, DType::kF64, 13)),
      {"float32", "float64"});
  expect_error(
      where_op(random_tensor({2, 3}, DType::kBool, 14), x, random_tensor({4}, DType::kF32, 15)),
      {"[2, 3]", "[4]"});
}

}  // namespace
}  // namespace skiff
