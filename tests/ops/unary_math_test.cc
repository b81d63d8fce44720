// sin, cos, log1p (values against <cmath>, gradients by finite differences), floor,
// ceil, round, sign over floats and integers, and isnan / isinf / isfinite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

OpTest unary(const std::string& type, const Tensor& x) {
  OpTest t(type);
  t.input("X", x);
  return t;
}

// `f` applied to every element of x (computed in double, then cast to x's dtype).
Tensor mapped(const Tensor& x, double (*f)(double)) {
  std::vector<double> v = to_f64(x).to_vector<double>();
  for (double& e : v) e = f(e);
  return values(x.shape(), v, x.dtype());
}

TEST(UnaryMathOp, SmoothFunctionsMatchCmath) {
  for (DType dt : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dt));
    const Tensor x = random_tensor({7, 300}, dt, 1, -0.9, 3);
    unary("sin", x).check_output("Out", mapped(x, [](double v) { return std::sin(v); }));
    unary("cos", x).check_output("Out", mapped(x, [](double v) { return std::cos(v); }));
    unary("log1p", x).check_output("Out", mapped(x, [](double v) { return std::log1p(v); }));
  }
  // log1p keeps precision where log(1 + x) would lose it
  unary("log1p", values({1}, {1e-10}, DType::kF64))
      .check_output("Out", values({1}, {std::log1p(1e-10)}, DType::kF64), 0, 1e-15);
}

TEST(UnaryMathOp, SmoothFunctionGradients) {
  const Tensor x = random_tensor({3, 4}, DType::kF64, 2, -0.5, 2);
  for (const char* type : {"sin", "cos", "log1p"}) {
    SCOPED_TRACE(type);
    unary(type, x).check_grad({"X"});
  }
}

TEST(UnaryMathOp, RoundingAndSign) {
  const std::vector<double> v = {-2.5, -1.5, -0.4, 0, 0.5, 1.5, 2.7};
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor x = values({7}, v, dt);
    unary("floor", x).check_output("Out", values({7}, {-3, -2, -1, 0, 0, 1, 2}, dt), 0, 0);
    unary("ceil", x).check_output("Out", values({7}, {-2, -1, -0.0, 0, 1, 2, 3}, dt), 0, 0);
    unary("round", x).check_output("Out", values({7}, {-3, -2, -0.0, 0, 1, 2, 3}, dt), 0, 0);
    unary("sign", x).check_output("Out", values({7}, {-1, -1, -1, 0, 1, 1, 1}, dt), 0, 0);
  }
  for (DType dt : {DType::kI32, DType::kI64}) {
    const Tensor x = values({4}, {-7, 0, 3, 9}, dt);
    unary("floor", x).check_output("Out", x, 0, 0);
    unary("round", x).check_output("Out", x, 0, 0);
    unary("sign", x).check_output("Out", values({4}, {-1, 0, 1, 1}, dt), 0, 0);
  }
}

TEST(UnaryMathOp, PiecewiseConstantOpsHaveZeroGradients) {
  const Tensor x = values({5}, {-2.3, -0.7, 0.25, 1.4, 2.6}, DType::kF64);
  for (const char* type : {"floor", "ceil", "round", "sign"}) {
    SCOPED_TRACE(type);
    unary(type, x).check_grad({"X"});
  }
}

TEST(UnaryMathOp, Classifiers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor x = values({5}, {1, nan, inf, -inf, -0.0}, dt);
    unary("isnan", x).check_output("Out", values({5}, {0, 1, 0, 0, 0}, DType::kBool), 0, 0);
    unary("isinf", x).check_output("Out", values({5}, {0, 0, 1, 1, 0}, DType::kBool), 0, 0);
    unary("isfinite", x).check_output("Out", values({5}, {1, 0, 0, 0, 1}, DType::kBool), 0, 0);
  }
  const Tensor ints = values({2}, {3, -4}, DType::kI64);
  unary("isnan", ints).check_output("Out", values({2}, {0, 0}, DType::kBool), 0, 0);
  unary("isfinite", ints).check_output("Out", values({2}, {1, 1}, DType::kBool), 0, 0);
}

TEST(UnaryMathOp, Errors) {
  expect_error(unary("sin", values({2}, {1, 2}, DType::kI64)),
               {"sin", "float32 or float64", "int64"});
  expect_error(unary("floor", values({2}, {1, 0}, DType::kBool)), {"floor", "bool"});
}

}  // namespace
}  // namespace skiff
