// abs, square, clip (every numeric dtype), softshrink and log_softmax: values against float64
// references at small and threaded sizes, integer wrap-around and bound rounding,
// special values, numerical stability, in-place use, gradients by finite differences,
// the grad ops in float32, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/log_softmax.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

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

TEST(MathOps, ForwardMatchesReferenceInEveryDtype) {
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

TEST(MathOps, IntegerEdges) {
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

TEST(MathOps, SpecialValues) {
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

TEST(MathOps, GradientsMatchFiniteDifferences) {
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

TEST(MathOps, GradOpsInFloat32) {
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

TEST(Softshrink, ValuesGradientsAndErrors) {
  const double t = 0.75;
  auto shrink = [t](double v) { return v > t ? v - t : v < -t ? v + t : 0.0; };
  for (DType dtype : {DType::kF32, DType::kF64}) {
    const Tensor x = random_tensor({4, 9}, dtype, 5, -3, 3);
    OpTest op("softshrink");
    op.input("X", x).attr("threshold", t);
    op.check_output("Out", from_f64(map_f64(to_f64(x), shrink), dtype));
  }
  OpTest grad("softshrink");
  grad.input("X", away_from(away_from(random_tensor({3, 5}, DType::kF64, 6, -3, 3), t), -t))
      .attr("threshold", t);
  grad.check_grad({"X"});
  OpTest negative("softshrink");
  negative.input("X", random_tensor({2}, DType::kF64, 7)).attr("threshold", -1.0);
  expect_error(negative, {"softshrink", "threshold must be >= 0", "-1"});
}

TEST(MathOps, Errors) {
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

// ---- log_softmax ----

// x - log(sum(exp(x))) along `axis`, in float64 with the max subtracted.
Tensor reference_log_softmax(const Tensor& x, int axis) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  const kernels::AxisBlocks layout(s, axis);
  const int64_t outer = layout.outer, n = layout.n, inner = layout.inner;
  Tensor out = Tensor::empty(s, DType::kF64);
  const double* p = a.data<double>();
  double* q = out.data<double>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t i) { return (o * n + i) * inner + j; };
      double mx = -kInf, sum = 0;
      for (int64_t i = 0; i < n; ++i) mx = std::max(mx, p[at(i)]);
      for (int64_t i = 0; i < n; ++i) sum += std::exp(p[at(i)] - mx);
      for (int64_t i = 0; i < n; ++i) q[at(i)] = p[at(i)] - mx - std::log(sum);
    }
  }
  return out;
}

TEST(LogSoftmax, MatchesReference) {
  struct Case {
    Shape x;
    int64_t axis;
  };
  const Case cases[] = {{{}, -1},        {{7}, 0},          {{3, 5}, -1},  {{3, 5}, 0},
                        {{2, 3, 4}, 1},  {{2, 3, 4}, -3},   {{4, 1}, 1},   {{64, 1024}, -1},
                        {{300, 300}, 0}, {{20, 50, 70}, 1}, {{2, 0, 3}, 1}};
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " axis ", c.axis));
      Tensor x = random_tensor(c.x, dtype, 3, -20, 20);
      const int axis = c.axis < 0 ? static_cast<int>(c.axis) + std::max(c.x.rank(), 1)
                                  : static_cast<int>(c.axis);
      Tensor want = from_f64(reference_log_softmax(x, c.x.rank() ? axis : 0), dtype);
      OpTest t("log_softmax");
      t.input("X", x).attr("axis", c.axis);
      if (dtype == DType::kF32) {
        t.check_output("Out", want, 1e-5, 1e-6);
      } else {
        t.check_output("Out", want, 1e-13, 1e-13);
      }
    }
  }
}

TEST(LogSoftmax, StableForExtremeValues) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    // A naive log(softmax) gives -inf (exp underflows) or NaN (exp overflows) here.
    OpTest t("log_softmax");
    t.input("X", from_f64(Tensor::from_vector<double>({2, 3}, {1000, 0, -1000, 0, -1e30, -kInf}),
                          dtype));
    t.check_output(
        "Out",
        from_f64(Tensor::from_vector<double>({2, 3}, {0, -1000, -2000, 0, -1e30, -kInf}), dtype));
    OpTest nan("log_softmax");
    nan.input("X", from_f64(Tensor::from_vector<double>({1, 3}, {1, kNaN, 2}), dtype));
    nan.check_output("Out",
                     from_f64(Tensor::from_vector<double>({1, 3}, {kNaN, kNaN, kNaN}), dtype));
  }
}

TEST(LogSoftmax, InPlace) {
  Tensor x = Tensor::from_vector<float>({2}, {0, 0});
  Tensor kept = x;  // shares storage: the kernel must not write through it
  kernels::log_softmax(x, -1, &x);
  EXPECT_FLOAT_EQ(x.data<float>()[0], -std::log(2.0f));
  EXPECT_EQ(kept.to_vector<float>(), (std::vector<float>{0, 0}));
}

TEST(LogSoftmax, GradientsMatchFiniteDifferences) {
  for (int64_t axis : {-1, 0, 1}) {
    SCOPED_TRACE(str_cat("axis ", axis));
    OpTest t("log_softmax");
    t.input("X", random_tensor({3, 4, 5}, DType::kF64, 4, -3, 3)).attr("axis", axis);
    t.check_grad({"X"});
  }
  OpTest scalar("log_softmax");
  scalar.input("X", Tensor::scalar<double>(2.5));
  scalar.check_grad({"X"});
}

TEST(LogSoftmax, GradOpInFloat32) {
  // X@GRAD = dOut - exp(Out) * sum(dOut) along the axis.
  for (const Shape& s : {Shape{3, 5}, Shape{64, 1024}}) {
    SCOPED_TRACE(str_cat(s));
    Tensor x = random_tensor(s, DType::kF64, 5, -3, 3);
    Tensor out = reference_log_softmax(x, 1);
    Tensor d = random_tensor(s, DType::kF64, 6);
    Tensor want = Tensor::empty(s, DType::kF64);
    for (int64_t r = 0; r < s[0]; ++r) {
      double sum = 0;
      for (int64_t c = 0; c < s[1]; ++c) sum += d.data<double>()[r * s[1] + c];
      for (int64_t c = 0; c < s[1]; ++c) {
        const int64_t i = r * s[1] + c;
        want.data<double>()[i] = d.data<double>()[i] - std::exp(out.data<double>()[i]) * sum;
      }
    }
    OpTest t("log_softmax_grad");
    t.input("Out", from_f64(out, DType::kF32))
        .input("Out@GRAD", from_f64(d, DType::kF32))
        .output("X@GRAD");
    t.check_output("X@GRAD", from_f64(want, DType::kF32), 1e-5, 1e-5);
  }
}

TEST(LogSoftmax, Errors) {
  OpTest axis("log_softmax");
  axis.input("X", random_tensor({2, 3}, DType::kF32, 7)).attr("axis", int64_t{2});
  expect_error(axis, {"log_softmax", "axis 2 is out of range"});
  OpTest ints("log_softmax");
  ints.input("X", Tensor::from_vector<int64_t>({2}, {1, 2}));
  expect_error(ints, {"log_softmax", "float32 or float64", "int64"});
}

}  // namespace
}  // namespace skiff
