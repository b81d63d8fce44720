// multinomial, poisson and standard_gamma: Paddle's values for a seed (multinomial,
// poisson), the distributions' moments, seeded reproducibility, shapes, and user errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/random.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::OpTest;

Tensor tensor_of(const std::vector<double>& values, const Shape& shape, DType dtype) {
  Tensor f64;
  f64.resize(shape, DType::kF64);
  std::copy(values.begin(), values.end(), f64.data<double>());
  return testing::from_f64(f64, dtype);
}

std::vector<double> as_f64(const Tensor& t) { return testing::to_f64(t).to_vector<double>(); }

Tensor run_multinomial(const Tensor& x, int64_t k, bool replacement, int64_t seed = 0) {
  OpTest t("multinomial");
  t.input("X", x).attr("num_samples", k).attr("replacement", replacement).attr("seed", seed);
  return t.run().at("Out").at(0);
}

Tensor run_on(const char* type, const Tensor& x, int64_t seed = 0) {
  OpTest t(type);
  t.input("X", x).attr("seed", seed);
  return t.run().at("Out").at(0);
}

TEST(MultinomialOp, PaddlesDrawsWithoutReplacement) {
  // paddle.seed(s); paddle.multinomial(paddle.to_tensor([0.1, 0.3, 0.2, 0.4]), 4, False).
  const Tensor x = tensor_of({0.1, 0.3, 0.2, 0.4}, {4}, DType::kF32);
  kernels::set_global_seed(0);
  EXPECT_EQ(run_multinomial(x, 4, false).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 3, 2}));
  kernels::set_global_seed(1);
  EXPECT_EQ(run_multinomial(x, 4, false).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 2, 1}));
}

TEST(MultinomialOp, FrequenciesFollowTheWeightsPerRowAndDtype) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    // Unnormalised rows; the second never draws its zero-weight categories.
    const Tensor x = tensor_of({1, 2, 3, 4, 0, 5, 0, 5}, {2, 4}, dtype);
    const Tensor out = run_multinomial(x, 20000, true, 3);
    ASSERT_EQ(out.shape(), (Shape{2, 20000}));
    EXPECT_EQ(out.dtype(), DType::kI64);
    std::vector<int64_t> v = out.to_vector<int64_t>();
    std::vector<double> count(8, 0);
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t s = 0; s < 20000; ++s) ++count[r * 4 + v[r * 20000 + s]];
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(count[j] / 20000, (j + 1) / 10.0, 0.012) << j;
    EXPECT_EQ(count[4] + count[6], 0);
    EXPECT_NEAR(count[5] / 20000, 0.5, 0.012);
    EXPECT_EQ(as_f64(run_multinomial(x, 20000, true, 3)), as_f64(out));
  }
}

TEST(MultinomialOp, WithoutReplacementEachCategoryOnce) {
  const Tensor x = tensor_of({0.5, 0.01, 0.2, 0.09, 0.2}, {5}, DType::kF64);
  for (int64_t seed = 1; seed <= 20; ++seed) {
    std::vector<int64_t> v = run_multinomial(x, 5, false, seed).to_vector<int64_t>();
    EXPECT_EQ(std::set<int64_t>(v.begin(), v.end()).size(), 5u) << seed;
  }
}

TEST(MultinomialOp, Errors) {
  const Tensor x = tensor_of({0.5, 0.0, 0.5}, {3}, DType::kF32);
  testing::expect_error(OpTest("multinomial").input("X", x).attr("num_samples", int64_t{3}),
                        {"row 0 has 2 categories of nonzero weight"});
  testing::expect_error(OpTest("multinomial").input("X", x).attr("num_samples", int64_t{4}),
                        {"4 samples without replacement from 3 categories"});
  testing::expect_error(OpTest("multinomial").input("X", tensor_of({0.5, -0.1}, {2}, DType::kF32)),
                        {"finite and non-negative", "-0.1", "category 1"});
  testing::expect_error(OpTest("multinomial").input("X", tensor_of({0, 0}, {1, 2}, DType::kF64)),
                        {"row 0 sum to 0"});
  testing::expect_error(OpTest("multinomial").input("X", tensor_of({1, 1}, {1, 1, 2}, DType::kF64)),
                        {"[C] or [N, C]"});
}

TEST(PoissonOp, PaddlesCountsAndMoments) {
  // paddle.seed(7); paddle.poisson(paddle.full([3], 3.0)); a rate of 0 takes its draw too.
  kernels::set_global_seed(7);
  EXPECT_EQ(as_f64(run_on("poisson", tensor_of({3, 3, 3}, {3}, DType::kF32))),
            (std::vector<double>{0, 7, 4}));
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    for (double rate : {0.5, 4.0, 40.0}) {
      const Tensor out =
          run_on("poisson", tensor_of(std::vector<double>(20000, rate), {100, 200}, dtype), 5);
      EXPECT_EQ(out.dtype(), dtype);
      double mean = 0, var = 0;
      std::vector<double> v = as_f64(out);
      for (double c : v) mean += c / v.size();
      for (double c : v) var += (c - mean) * (c - mean) / v.size();
      EXPECT_NEAR(mean, rate, 0.05 * std::sqrt(rate) + 0.01);
      EXPECT_NEAR(var, rate, 0.1 * rate + 0.02);
    }
  }
  EXPECT_EQ(as_f64(run_on("poisson", tensor_of({0, 0}, {2}, DType::kF64), 3)),
            (std::vector<double>{0, 0}));
  testing::expect_error(OpTest("poisson").input("X", tensor_of({1, -2}, {2}, DType::kF32)),
                        {"non-negative and finite", "-2", "element 1"});
}

TEST(StandardGammaOp, MomentsOfTheShapes) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    for (double alpha : {0.3, 1.0, 7.5}) {
      std::vector<double> v = as_f64(run_on(
          "standard_gamma", tensor_of(std::vector<double>(20000, alpha), {20000}, dtype), 9));
      double mean = 0, var = 0;
      for (double g : v) {
        ASSERT_GT(g, 0);
        mean += g / v.size();
      }
      for (double g : v) var += (g - mean) * (g - mean) / v.size();
      EXPECT_NEAR(mean, alpha, 0.04 * std::sqrt(alpha) + 0.01);
      EXPECT_NEAR(var, alpha, 0.1 * alpha);
    }
  }
  testing::expect_error(OpTest("standard_gamma").input("X", tensor_of({1, 0}, {2}, DType::kF64)),
                        {"positive and finite", "element 1"});
}

}  // namespace
}  // namespace skiff
