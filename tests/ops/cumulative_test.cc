// cumprod, logcumsumexp, cummax and cummin: values against element-by-element float64
// references in every claimed dtype and along every axis position (threaded path too),
// gradients against finite differences (cumprod with zeros in a row, logcumsumexp with
// large values and mixed-sign cotangents), declared shapes and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

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
constexpr double kInf = std::numeric_limits<double>::infinity();

OpTest scan_op(const std::string& type, const Tensor& x, int64_t axis) {
  OpTest t(type);
  t.input("X", x).attr("axis", axis);
  if (type == "cummax" || type == "cummin") t.output("Out").output("Indices");
  return t;
}

// Applies `step(acc, value, k)` along each lane of `axis` (non-negative) in float64; `step`
// returns the new accumulator and may record the position in `where`.
Tensor lane_reference(const Tensor& x, int axis,
                      const std::function<double(double, double, int64_t)>& step,
                      Tensor* where = nullptr) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  int64_t inner = 1;
  for (int d = axis + 1; d < s.rank(); ++d) inner *= s[d];
  const int64_t n = s[axis], outer = x.numel() / (n * inner);
  Tensor r = Tensor::empty(s, DType::kF64);
  if (where) *where = Tensor::empty(s, DType::kI64);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double acc = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = (o * n + k) * inner + i;
        acc = k == 0 ? a.data<double>()[at] : step(acc, a.data<double>()[at], k);
        r.data<double>()[at] = acc;
        if (where) {
          const int64_t before = at - inner;
          const bool moved = k == 0 || acc != r.data<double>()[before] ||
                             (std::isnan(acc) && std::isnan(a.data<double>()[at])) ||
                             acc == a.data<double>()[at];
          where->data<int64_t>()[at] = moved ? k : where->data<int64_t>()[before];
        }
      }
    }
  }
  return r;
}

int positive_axis(int64_t axis, const Shape& s) {
  return static_cast<int>(axis < 0 ? axis + s.rank() : axis);
}

struct Case {
  Shape x;
  int64_t axis;
};
const Case kCases[] = {{{3, 4}, 0}, {{3, 4}, 1},    {{2, 3, 4}, -2},
                       {{5}, -1},   {{64, 600}, 0}, {{600, 64}, 1}};

TEST(CumprodOp, MatchesReferenceInEveryDtype) {
  for (const Case& c : kCases) {
    for (DType dtype : kNumeric) {
      SCOPED_TRACE(str_cat(c.x, " axis ", c.axis, " ", dtype_name(dtype)));
      // Values near +-1 keep long products finite; integers in [-2, 2] include zeros.
      Tensor x = is_floating(dtype) ? random_tensor(c.x, dtype, 1, 0.9, 1.1)
                                    : random_tensor(c.x, dtype, 1, -2, 3);
      const Tensor want = lane_reference(x, positive_axis(c.axis, c.x),
                                         [](double acc, double v, int64_t) { return acc * v; });
      if (!is_floating(dtype) && c.x.numel() > 100) continue;  // integer overflow territory
      scan_op("cumprod", x, c.axis).check_output("Out", from_f64(want, dtype), 1e-5, 1e-4);
    }
  }
}

TEST(CumprodOp, GradientsExactWithZeros) {
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE(str_cat("axis ", axis));
    scan_op("cumprod", random_tensor({3, 5}, DType::kF64, 2), axis).check_grad({"X"});
  }
  // One zero, two zeros, and a zero first in a row: the finite differences are exact
  // (cumprod is linear in each element), so the gradient must be too.
  Tensor x = Tensor::from_vector<double>({3, 5},
                                         {1.5, 0, 2, -1, 3, 0.5, 2, 0, 4, 0, 0, 1.2, -0.7, 2, 1.1});
  scan_op("cumprod", x, 1).check_grad({"X"});
  scan_op("cumprod", x, 0).check_grad({"X"});
}

TEST(LogcumsumexpOp, MatchesReferenceAndStaysFinite) {
  const auto step = [](double acc, double v, int64_t) {
    const double hi = std::max(acc, v);
    return hi == -kInf ? hi : hi + std::log(std::exp(acc - hi) + std::exp(v - hi));
  };
  for (const Case& c : kCases) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(str_cat(c.x, " axis ", c.axis, " ", dtype_name(dtype)));
      Tensor x = random_tensor(c.x, dtype, 3, -4, 4);
      const Tensor want = lane_reference(x, positive_axis(c.axis, c.x), step);
      scan_op("logcumsumexp", x, c.axis).check_output("Out", from_f64(want, dtype), 1e-5, 1e-5);
    }
  }
  const Tensor big =
      from_f64(Tensor::from_vector<double>({4}, {1000, 1000, -kInf, 999}), DType::kF32);
  const double l2 = std::log(2.0), l3 = 1000 + std::log(2 + std::exp(-1.0));
  scan_op("logcumsumexp", big, 0)
      .check_output(
          "Out",
          from_f64(Tensor::from_vector<double>({4}, {1000, 1000 + l2, 1000 + l2, l3}), DType::kF32),
          1e-3, 1e-6);
  Tensor low = Tensor::from_vector<double>({3}, {-kInf, -kInf, 0});
  scan_op("logcumsumexp", low, 0)
      .check_output("Out", Tensor::from_vector<double>({3}, {-kInf, -kInf, 0}), 0, 0);
}

TEST(LogcumsumexpOp, GradientsMatchFiniteDifferences) {
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE(str_cat("axis ", axis));
    scan_op("logcumsumexp", random_tensor({4, 5}, DType::kF64, 4, -3, 3), axis).check_grad({"X"});
  }
  // Far from zero, where exp would overflow: the log-space reverse pass stays exact.
  scan_op("logcumsumexp", random_tensor({2, 6}, DType::kF64, 5, 700, 760), 1)
      .check_grad({"X"}, "Out", 1e-6, 1e-6, 1e-5);
}

TEST(CumExtremeOps, MatchReferenceInEveryDtype) {
  for (const bool largest : {true, false}) {
    const std::string type = largest ? "cummax" : "cummin";
    const auto step = [largest](double acc, double v, int64_t) {
      return largest ? (v >= acc ? v : acc) : (v <= acc ? v : acc);
    };
    for (const Case& c : kCases) {
      for (DType dtype : kNumeric) {
        SCOPED_TRACE(str_cat(type, " ", c.x, " axis ", c.axis, " ", dtype_name(dtype)));
        Tensor x = random_tensor(c.x, dtype, 6, -5, 5);  // integers: many ties
        Tensor where;
        const Tensor want = lane_reference(x, positive_axis(c.axis, c.x), step, &where);
        OpTest t = scan_op(type, x, c.axis);
        t.check_output("Out", from_f64(want, dtype), 0, 0);
        t.check_output("Indices", where, 0, 0);
      }
    }
  }
}

TEST(CumExtremeOps, TiesTakeTheLastPositionAndNanStays) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = Tensor::from_vector<double>({7}, {1, 3, 3, 2, nan, 5, nan});
  OpTest max = scan_op("cummax", x, 0);
  max.check_output("Indices", Tensor::from_vector<int64_t>({7}, {0, 1, 2, 2, 4, 4, 6}), 0, 0);
  const auto out = max.run();
  EXPECT_EQ(out.at("Out")[0].data<double>()[3], 3);
  EXPECT_TRUE(std::isnan(out.at("Out")[0].data<double>()[5]));
  scan_op("cummin", x, 0)
      .check_output("Indices", Tensor::from_vector<int64_t>({7}, {0, 0, 0, 0, 4, 4, 6}), 0, 0);
}

TEST(CumExtremeOps, GradientsScatterToTheIndices) {
  for (const char* type : {"cummax", "cummin"}) {
    for (int64_t axis : {0, 1}) {
      SCOPED_TRACE(str_cat(type, " axis ", axis));
      scan_op(type, random_tensor({4, 5}, DType::kF64, 7), axis).check_grad({"X"});
    }
  }
}

TEST(CumulativeOps, ShapesAndErrors) {
  for (const char* type : {"cumprod", "logcumsumexp", "cummax", "cummin"}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(declared_shape(type, {{"X", DType::kF32, {-1, 3}}}, {{"axis", int64_t{0}}}),
              Shape({-1, 3}));
    expect_error(scan_op(type, random_tensor({2, 3}, DType::kF32, 3), 2), {type, "axis 2"});
    expect_error(scan_op(type, random_tensor({2, 3}, DType::kBool, 3), 0), {type, "bool"});
  }
  EXPECT_EQ(declared_shape("cummax", {{"X", DType::kI32, {2, -1}}}, {}, "Indices"), Shape({2, -1}));
  expect_error(scan_op("logcumsumexp", random_tensor({3}, DType::kI64, 3), 0),
               {"logcumsumexp", "float32 or float64", "int64"});
}

}  // namespace
}  // namespace skiff
