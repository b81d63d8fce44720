// abs, square, clip (every numeric dtype: values against float64 references at small and
// threaded sizes, integer wrap-around and bound rounding, special values, gradients, the
// grad ops in float32, errors); the smooth functions (trigonometric, hyperbolic and their inverses,
// log1p, expm1, erf, erfinv, lgamma, digamma: values against <cmath> or tabulated values, gradients
// by finite differences), floor, ceil, round, sign over floats and integers, and isnan / isinf /
// isfinite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
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

struct SmoothCase {
  const char* type;
  double (*f)(double);
  double lo, hi;  // a domain where f and its derivative are finite
};

const SmoothCase kSmoothCases[] = {
    {"tan", [](double v) { return std::tan(v); }, -1.2, 1.2},
    {"atan", [](double v) { return std::atan(v); }, -4, 4},
    {"asin", [](double v) { return std::asin(v); }, -0.95, 0.95},
    {"acos", [](double v) { return std::acos(v); }, -0.95, 0.95},
    {"sinh", [](double v) { return std::sinh(v); }, -3, 3},
    {"cosh", [](double v) { return std::cosh(v); }, -3, 3},
    {"asinh", [](double v) { return std::asinh(v); }, -4, 4},
    {"acosh", [](double v) { return std::acosh(v); }, 1.05, 5},
    {"atanh", [](double v) { return std::atanh(v); }, -0.95, 0.95},
    {"erf", [](double v) { return std::erf(v); }, -2.5, 2.5},
    {"expm1", [](double v) { return std::expm1(v); }, -2, 2},
    {"lgamma", [](double v) { return std::lgamma(v); }, 0.2, 6},
};

TEST(UnaryMathOp, MoreSmoothFunctionsMatchCmath) {
  for (const SmoothCase& c : kSmoothCases) {
    SCOPED_TRACE(c.type);
    for (DType dt : {DType::kF32, DType::kF64}) {
      const Tensor x = random_tensor({5, 211}, dt, 3, c.lo, c.hi);
      unary(c.type, x).check_output("Out", mapped(x, c.f), 1e-6, dt == DType::kF32 ? 1e-5 : 1e-12);
    }
    unary(c.type, random_tensor({2, 3}, DType::kF64, 4, c.lo, c.hi)).check_grad({"X"});
  }
  // expm1 keeps precision where exp(x) - 1 would lose it
  unary("expm1", values({1}, {1e-12}, DType::kF64))
      .check_output("Out", values({1}, {std::expm1(1e-12)}, DType::kF64), 0, 1e-15);
}

TEST(UnaryMathOp, ErfinvInvertsErf) {
  // tabulated: erfinv(0.5), erfinv(-0.9), erfinv(0.999999)
  const Tensor y = values({4}, {0.5, -0.9, 0.999999, 0}, DType::kF64);
  unary("erfinv", y)
      .check_output("Out",
                    values({4}, {0.47693627620446987, -1.1630871536766743, 3.4589107372754988, 0},
                           DType::kF64),
                    0, 1e-13);
  for (DType dt : {DType::kF32, DType::kF64}) {
    // erfinv(erf(x)) == x where erf(x) is far enough from +-1 to keep x's precision
    const Tensor inner = random_tensor({4, 250}, dt, 5, -2, 2);
    unary("erfinv", mapped(inner, [](double v) { return std::erf(v); }))
        .check_output("Out", inner, 1e-6, dt == DType::kF32 ? 1e-5 : 1e-12);
  }
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor out = unary("erfinv", values({4}, {1, -1, 1.5, -2}, DType::kF32)).run()["Out"][0];
  const std::vector<double> v = to_f64(out).to_vector<double>();
  EXPECT_EQ(v[0], inf);
  EXPECT_EQ(v[1], -inf);
  EXPECT_TRUE(std::isnan(v[2]) && std::isnan(v[3]));
  unary("erfinv", random_tensor({2, 3}, DType::kF64, 6, -0.95, 0.95)).check_grad({"X"});
}

TEST(UnaryMathOp, DigammaMatchesTabulatedValues) {
  // psi(1) = -euler_gamma, psi(0.5) = -euler_gamma - 2 log 2, psi(-2.5) by reflection,
  // psi(25.5) through the asymptotic series alone
  const double g = 0.57721566490153286;
  for (DType dt : {DType::kF32, DType::kF64}) {
    unary("digamma", values({5}, {1, 0.5, -2.5, 25.5, 3}, dt))
        .check_output(
            "Out",
            values({5},
                   {-g, -g - 2 * std::log(2.0), 1.1031566406452432, 3.2189424728839198, 1.5 - g},
                   dt),
            1e-7, dt == DType::kF32 ? 1e-6 : 1e-13);
  }
  // the derivative of lgamma, within finite differences of std::lgamma
  const Tensor x = random_tensor({3, 40}, DType::kF64, 7, -4.9, 8);
  std::vector<double> want = x.to_vector<double>();
  for (double& v : want) v = (std::lgamma(v + 1e-6) - std::lgamma(v - 1e-6)) / 2e-6;
  unary("digamma", x).check_output("Out", values({3, 40}, want, DType::kF64), 1e-6, 1e-6);
  const std::vector<double> poles =
      to_f64(unary("digamma", values({2}, {0, -3}, DType::kF64)).run()["Out"][0])
          .to_vector<double>();
  EXPECT_EQ(poles[0], -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(poles[1]));
  // its gradient is trigamma: the reflection and the series both checked
  unary("digamma", values({4}, {0.3, 2.2, 13.5, -1.4}, DType::kF64)).check_grad({"X"});
  unary("lgamma", values({3}, {-2.3, 0.7, 11.2}, DType::kF64)).check_grad({"X"});
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
  expect_error(unary("erfinv", values({2}, {1, 2}, DType::kI32)),
               {"erfinv", "float32 or float64", "int32"});
}

// ---- abs, square, clip (every numeric dtype) ----

constexpr DType kNumericTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};
const Shape kShapes[] = {{}, {1, 16}, {3, 5}, {300, 300}};
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor map_f64(const Tensor& x64, const std::function<double(double)>& f) {
  Tensor out = Tensor::empty(x64.shape(), DType::kF64);
  for (int64_t i = 0; i < x64.numel(); ++i) out.data<double>()[i] = f(x64.data<double>()[i]);
  return out;
}

// Moves values within 0.1 of `kink` 0.1 further away, so finite differences avoid it.
Tensor away_from(const Tensor& x64, double kink) {
  return map_f64(x64, [kink](double v) { return v < kink ? v - 0.1 : v + 0.1; });
}

struct UnaryCase {
  const char* type;
  std::function<double(double)> f;
  double lo, hi;
  AttrList attrs;
};

const UnaryCase kUnary[] = {
    {"abs", [](double x) { return std::abs(x); }, -50, 50, {}},
    {"square", [](double x) { return x * x; }, -50, 50, {}},
    {"clip", [](double x) { return std::min(std::max(x, -20.5), 30.25); }, -50, 50,
     AttrList{{"min", -20.5}, {"max", 30.25}}},
    {"clip", [](double x) { return x; }, -50, 50, {}},  // no bounds by default
};

OpTest unary_op(const UnaryCase& c, const Tensor& x) {
  OpTest t(c.type);
  t.input("X", x);
  for (const auto& [name, value] : c.attrs) t.attr(name, value);
  return t;
}

TEST(NumericUnaryOps, ForwardMatchesReferenceInEveryDtype) {
  for (const UnaryCase& c : kUnary) {
    for (DType dtype : kNumericTypes) {
      for (const Shape& s : kShapes) {
        SCOPED_TRACE(str_cat(c.type, " ", c.attrs.size(), " attrs ", dtype_name(dtype), " ", s));
        Tensor x = random_tensor(s, dtype, 1, c.lo, c.hi);
        // Integer clip bounds round inwards: [-20.5, 30.25] clips ints to [-20, 30].
        Tensor want = from_f64(map_f64(to_f64(x), c.f), dtype);
        unary_op(c, x).check_output("Out", want, 1e-6, 1e-6);
      }
    }
  }
}

TEST(NumericUnaryOps, IntegerEdges) {
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  OpTest abs32("abs");
  abs32.input("X", Tensor::from_vector<int32_t>({3}, {min32, -7, 7}));
  abs32.check_output("Out", Tensor::from_vector<int32_t>({3}, {min32, 7, 7}));  // wraps

  OpTest sq("square");
  sq.input("X", Tensor::from_vector<int64_t>({2}, {-3000000000, 5}));
  sq.check_output("Out", Tensor::from_vector<int64_t>({2}, {9000000000000000000, 25}));

  // Bounds past the dtype's range do not clip; fractional ones round inwards.
  OpTest clip("clip");
  clip.input("X", Tensor::from_vector<int32_t>({4}, {min32, -3, 3, 2147483647}))
      .attr("min", -1e20)
      .attr("max", 2.9);
  clip.check_output("Out", Tensor::from_vector<int32_t>({4}, {min32, -3, 2, 2}));
}

TEST(NumericUnaryOps, SpecialValues) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    auto vec = [dtype](std::vector<double> v) {
      return from_f64(Tensor::from_vector<double>({static_cast<int64_t>(v.size())}, v), dtype);
    };
    OpTest abs("abs");
    abs.input("X", vec({kNaN, -kInf, kInf, -0.0}));
    abs.check_output("Out", vec({kNaN, kInf, kInf, 0}));
    OpTest sq("square");
    sq.input("X", vec({kNaN, -kInf, 1e200}));
    sq.check_output("Out", vec({kNaN, kInf, kInf}));
    OpTest clip("clip");
    clip.input("X", vec({kNaN, -kInf, kInf, 0.5})).attr("min", -1.0).attr("max", 1.0);
    clip.check_output("Out", vec({kNaN, -1, 1, 0.5}));
  }
}

TEST(NumericUnaryOps, GradientsMatchFiniteDifferences) {
  for (const Shape& s : {Shape{}, Shape{3, 7}}) {
    SCOPED_TRACE(str_cat(s));
    Tensor x = away_from(random_tensor(s, DType::kF64, 2, -2, 2), 0);
    unary_op(kUnary[0], x).check_grad({"X"});
    unary_op(kUnary[1], x).check_grad({"X"});
    OpTest clip("clip");
    clip.input("X", away_from(away_from(x, -1), 1.5)).attr("min", -1.0).attr("max", 1.5);
    clip.check_grad({"X"});
  }
}

TEST(NumericUnaryOps, GradOpsInFloat32) {
  Tensor x = Tensor::from_vector<float>({5}, {-2, -0.5, 0, 0.5, 2});
  Tensor d = Tensor::from_vector<float>({5}, {1, 2, 3, 4, 5});
  auto grad = [&](const char* type, AttrList attrs) {
    OpTest t(type);
    t.input("X", x).input("Out@GRAD", d).output("X@GRAD");
    for (const auto& [name, value] : attrs) t.attr(name, value);
    return t;
  };
  grad("abs_grad", {}).check_output("X@GRAD", Tensor::from_vector<float>({5}, {-1, -2, 0, 4, 5}));
  grad("square_grad", {})
      .check_output("X@GRAD", Tensor::from_vector<float>({5}, {-4, -2, 0, 4, 20}));
  // At a bound the gradient is 0 (Paddle's convention).
  grad("clip_grad", {{"min", -0.5}, {"max", 1.0}})
      .check_output("X@GRAD", Tensor::from_vector<float>({5}, {0, 0, 3, 4, 0}));
}

TEST(NumericUnaryOps, Errors) {
  OpTest clip("clip");
  clip.input("X", Tensor::from_vector<float>({2}, {1, 2})).attr("min", 2.0).attr("max", 1.0);
  expect_error(clip, {"clip", "min (2) must not exceed max (1)"});
  OpTest abs("abs");
  abs.input("X", Tensor::from_vector<bool>({2}, {true, false}));
  expect_error(abs, {"abs", "numeric", "bool"});
  OpTest grad("square_grad");
  grad.input("X", Tensor::from_vector<float>({2}, {1, 2}))
      .input("Out@GRAD", Tensor::from_vector<float>({3}, {1, 2, 3}))
      .output("X@GRAD");
  expect_error(grad, {"square_grad", "float32[2]", "float32[3]"});
}

}  // namespace
}  // namespace skiff
