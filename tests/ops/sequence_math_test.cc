// cumsum (every numeric dtype, each axis, exclusive and reverse, the threaded path,
// gradients of all four variants) and arange (attrs and tensor bounds, integer and
// floating dtypes, empty ranges, declared shapes), with errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skiff/runtime/executor.h"
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

constexpr DType kNumeric[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};

OpTest cumsum_op(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  OpTest t("cumsum");
  t.input("X", x).attr("axis", axis).attr("exclusive", exclusive).attr("reverse", reverse);
  return t;
}

// Sums along `axis` (non-negative) in float64, element by element.
Tensor cumsum_reference(const Tensor& x, int axis, bool exclusive, bool reverse) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  int64_t inner = 1;
  for (int d = axis + 1; d < s.rank(); ++d) inner *= s[d];
  const int64_t n = s[axis], outer = x.numel() / (n * inner);
  Tensor r = Tensor::empty(s, DType::kF64);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < n; ++k) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          const bool before = reverse ? j > k : j < k;
          if (before || (!exclusive && j == k)) sum += a.data<double>()[(o * n + j) * inner + i];
        }
        r.data<double>()[(o * n + k) * inner + i] = sum;
      }
    }
  }
  return from_f64(r, x.dtype());
}

TEST(CumsumOp, MatchesReferenceInEveryDtype) {
  struct Case {
    Shape x;
    int64_t axis;
  };
  const Case cases[] = {{{3, 4}, 0}, {{3, 4}, 1},    {{2, 3, 4}, -2},
                        {{5}, -1},   {{64, 700}, 0}, {{700, 64}, 1}};
  for (const Case& c : cases) {
    for (DType dtype : kNumeric) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(str_cat(c.x, " axis ", c.axis, " ", dtype_name(dtype), " exclusive ",
                               exclusive, " reverse ", reverse));
          Tensor x = random_tensor(c.x, dtype, 1, -9, 9);
          const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.x.rank() : c.axis);
          cumsum_op(x, c.axis, exclusive, reverse)
              .check_output("Out", cumsum_reference(x, axis, exclusive, reverse), 1e-4, 1e-5);
        }
      }
    }
  }
}

TEST(CumsumOp, WritesIntoItsInput) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF64, {2, 5});
  b.op("cumsum", {{"X", {x}}}, {{"Out", {x}}}, {{"axis", int64_t{1}}, {"exclusive", true}});
  Tensor xv = random_tensor({2, 5}, DType::kF64, 5);
  Scope scope;
  auto out = Executor().run(p, &scope, {{x, xv}}, {x});
  std::string why;
  EXPECT_TRUE(testing::all_close(out[0], cumsum_reference(xv, 1, true, false), 1e-12, 0, &why))
      << why;
}

TEST(CumsumOp, ShapesDeclaredOverUnknownDims) {
  EXPECT_EQ(declared_shape("cumsum", {{"X", DType::kF32, {-1, 3}}}, {{"axis", int64_t{0}}}),
            Shape({-1, 3}));
}

TEST(CumsumOp, GradientsMatchFiniteDifferences) {
  for (int64_t axis : {0, -1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        SCOPED_TRACE(str_cat("axis ", axis, " exclusive ", exclusive, " reverse ", reverse));
        cumsum_op(random_tensor({3, 4}, DType::kF64, 2), axis, exclusive, reverse)
            .check_grad({"X"});
      }
    }
  }
}

TEST(CumsumOp, Errors) {
  expect_error(cumsum_op(random_tensor({2, 3}, DType::kF32, 3), 2, false, false),
               {"cumsum", "axis 2", "[2, 3]"});
  expect_error(cumsum_op(random_tensor({2, 3}, DType::kBool, 4), 0, false, false),
               {"cumsum", "bool"});
}

// ---- arange ----

OpTest arange_op(double start, double end, double step, const std::string& dtype) {
  OpTest t("arange");
  t.attr("start", start).attr("end", end).attr("step", step).attr("dtype", dtype);
  return t;
}

TEST(ArangeOp, ValuesFromAttrs) {
  arange_op(0, 1, 0.25, "float32")
      .check_output("Out", Tensor::from_vector<float>({4}, {0, 0.25f, 0.5f, 0.75f}), 0, 0);
  arange_op(1, 2, 0.3, "float64")
      .check_output("Out", Tensor::from_vector<double>({4}, {1, 1.3, 1.6, 1.9}), 1e-12, 0);
  arange_op(5, 0, -2, "int64")
      .check_output("Out", Tensor::from_vector<int64_t>({3}, {5, 3, 1}), 0, 0);
  arange_op(-3, 4, 3, "int32")
      .check_output("Out", Tensor::from_vector<int32_t>({3}, {-3, 0, 3}), 0, 0);
  arange_op(5, 0, 1, "int64").check_output("Out", Tensor::from_vector<int64_t>({0}, {}), 0, 0);
  arange_op(0, 0, 1, "float32").check_output("Out", Tensor::from_vector<float>({0}, {}), 0, 0);
}

TEST(ArangeOp, ValuesFromTensorBounds) {
  OpTest t("arange");
  t.input("Start", Tensor::from_vector<int64_t>({1}, {2}))
      .input("End", Tensor::scalar<int64_t>(11))
      .input("Step", Tensor::from_vector<int64_t>({1}, {4}))
      .attr("dtype", std::string("int64"));
  t.check_output("Out", Tensor::from_vector<int64_t>({3}, {2, 6, 10}), 0, 0);
  OpTest end_only("arange");
  end_only.input("End", Tensor::scalar<double>(2.5)).attr("dtype", std::string("float64"));
  end_only.check_output("Out", Tensor::from_vector<double>({3}, {0, 1, 2}), 0, 0);
}

TEST(ArangeOp, DeclaredShapes) {
  EXPECT_EQ(declared_shape(
                "arange", {},
                {{"start", 0.0}, {"end", 10.0}, {"step", 3.0}, {"dtype", std::string("int64")}}),
            Shape({4}));
  EXPECT_EQ(
      declared_shape("arange", {{"End", DType::kI64, {1}}}, {{"dtype", std::string("int64")}}),
      Shape({-1}));
}

TEST(ArangeOp, Errors) {
  expect_error(arange_op(0, 5, 0, "float32"), {"arange", "non-zero step"});
  expect_error(arange_op(0, 2.5, 1, "int64"), {"arange", "int64", "integral", "2.5"});
  expect_error(arange_op(0, 5, 1, "bool"), {"arange", "numeric"});
  OpTest two("arange");
  two.input("End", Tensor::from_vector<int64_t>({2}, {3, 4})).attr("dtype", std::string("int64"));
  expect_error(two, {"arange", "End", "one element", "[2]"});
}

}  // namespace
}  // namespace skiff
