// fill_constant, fill_any_like, fill_zeros_like (tensors and tensor arrays),
// uniform_random, gaussian_random, randint, randperm and truncated_gaussian_random: values
// per dtype (Paddle's, for a seed), seeded reproducibility, pinned values of the generator, rough
// statistics, and user errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/kernels/cpu/random.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

Tensor filled_f64(const Shape& shape, double value) {
  return Tensor::from_vector<double>(shape, std::vector<double>(shape.numel(), value));
}

TEST(FillConstantOp, EveryDtype) {
  for (DType dtype : kAllTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    double value = dtype == DType::kBool ? 1.0 : 3.0;
    OpTest t("fill_constant");
    t.attr("shape", std::vector<int64_t>{2, 3})
        .attr("value", value)
        .attr("dtype", std::string(dtype_name(dtype)));
    t.check_output("Out", from_f64(filled_f64({2, 3}, value), dtype), 0, 0);
  }
}

TEST(FillConstantOp, DefaultsToFloat32AndNegativeValues) {
  OpTest t("fill_constant");
  t.attr("shape", std::vector<int64_t>{4}).attr("value", -2.5);
  t.check_output("Out", Tensor::from_vector<float>({4}, {-2.5f, -2.5f, -2.5f, -2.5f}), 0, 0);
  OpTest scalar("fill_constant");
  scalar.attr("shape", std::vector<int64_t>{})
      .attr("value", 7.0)
      .attr("dtype", std::string("int64"));
  scalar.check_output("Out", Tensor::scalar<int64_t>(7), 0, 0);
}

TEST(FillConstantOp, LargeTensorIsFilledEverywhere) {
  OpTest t("fill_constant");
  t.attr("shape", std::vector<int64_t>{300, 500})
      .attr("value", 0.25)
      .attr("dtype", std::string("float64"));
  t.check_output("Out", filled_f64({300, 500}, 0.25), 0, 0);
}

TEST(FillConstantOp, Errors) {
  auto run = [](double value, const char* dtype, std::vector<int64_t> shape) {
    OpTest t("fill_constant");
    t.attr("shape", shape).attr("value", value).attr("dtype", std::string(dtype));
    return t.run();
  };
  EXPECT_THROW(run(2.5, "int32", {2}), Error);        // not integral
  EXPECT_THROW(run(1e10, "int32", {2}), Error);       // out of range
  EXPECT_THROW(run(1.0, "float32", {-1, 2}), Error);  // unknown dim
  EXPECT_THROW(run(1.0, "float16", {2}), Error);      // unknown dtype
  EXPECT_NO_THROW(run(1e10, "int64", {2}));
}

TEST(FillAnyLikeOp, KeepsShapeAndDtype) {
  for (DType dtype : kAllTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    OpTest t("fill_any_like");
    t.input("X", random_tensor({3, 2}, dtype, 1)).attr("value", 1.0);
    t.check_output("Out", from_f64(filled_f64({3, 2}, 1.0), dtype), 0, 0);
  }
}

TEST(FillAnyLikeOp, DtypeAttrOverridesAndDefaultValueIsZero) {
  OpTest t("fill_any_like");
  t.input("X", random_tensor({2, 2}, DType::kF32, 2))
      .attr("value", 7.0)
      .attr("dtype", std::string("int64"));
  t.check_output("Out", Tensor::from_vector<int64_t>({2, 2}, {7, 7, 7, 7}), 0, 0);
  OpTest zero("fill_any_like");
  zero.input("X", random_tensor({3}, DType::kF64, 3));
  zero.check_output("Out", filled_f64({3}, 0.0), 0, 0);
}

TEST(FillZerosLikeOp, EveryDtype) {
  for (DType dtype : kAllTypes) {
    SCOPED_TRACE(dtype_name(dtype));
    OpTest t("fill_zeros_like");
    t.input("X", random_tensor({2, 5}, dtype, 4, 1.0, 9.0));
    t.check_output("Out", from_f64(filled_f64({2, 5}, 0.0), dtype), 0, 0);
  }
}

TEST(FillZerosLikeOp, TensorArrayKeepsShapesAndEmptyEntries) {
  Program p;
  BlockBuilder b(&p);
  b.block().add_var(VarDesc("arr", DType::kF32, Shape{-1}, VarKind::kTensorArray));
  std::string x0 = b.data("x0", DType::kF32, {2});
  std::string x2 = b.data("x2", DType::kF32, {3});
  auto index = [&](int64_t i) {
    return b.apply("fill_constant", {},
                   {{"shape", std::vector<int64_t>{1}},
                    {"value", static_cast<double>(i)},
                    {"dtype", std::string("int64")}});
  };
  b.op("write_to_array", {{"X", {x0}}, {"I", {index(0)}}}, {{"Out", {"arr"}}});
  b.op("write_to_array", {{"X", {x2}}, {"I", {index(2)}}}, {{"Out", {"arr"}}});
  b.op("fill_zeros_like", {{"X", {"arr"}}}, {{"Out", {"zeros"}}});
  EXPECT_EQ(p.global_block().find_local_var("zeros")->kind, VarKind::kTensorArray);

  Scope scope;
  feed(p, &scope, x0, Tensor::from_vector<float>({2}, {1, 2}));
  feed(p, &scope, x2, Tensor::from_vector<float>({3}, {3, 4, 5}));
  Executor exe;
  auto prepared = exe.prepare(p, {"zeros", "arr"});
  exe.run(*prepared, &scope);
  const TensorArray* zeros = scope.find_var("zeros")->array();
  ASSERT_NE(zeros, nullptr);
  ASSERT_EQ(zeros->size(), 3u);
  EXPECT_EQ((*zeros)[0].to_vector<float>(), std::vector<float>({0, 0}));
  EXPECT_FALSE((*zeros)[1].initialized());
  EXPECT_EQ((*zeros)[2].to_vector<float>(), std::vector<float>({0, 0, 0}));
  // The source array is untouched.
  EXPECT_EQ((*scope.find_var("arr")->array())[2].to_vector<float>(), std::vector<float>({3, 4, 5}));
}

// ---- random ----

Tensor run_random(const char* type, DType dtype, const Shape& shape, int64_t seed,
                  const AttrList& extra = {}) {
  OpTest t(type);
  t.attr("shape", shape.vec()).attr("seed", seed).attr("dtype", std::string(dtype_name(dtype)));
  for (const auto& [k, v] : extra) t.attr(k, v);
  return t.run().at("Out").at(0);
}

std::vector<double> as_f64(const Tensor& t) { return testing::to_f64(t).to_vector<double>(); }

void expect_moments(const Tensor& t, double mean, double stddev, double tol) {
  std::vector<double> v = as_f64(t);
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= v.size();
  for (double x : v) s += (x - m) * (x - m);
  s = std::sqrt(s / v.size());
  EXPECT_NEAR(m, mean, tol);
  EXPECT_NEAR(s, stddev, tol);
}

TEST(UniformRandomOp, PinnedValuesForASeedArePaddles) {
  // The generator is part of the contract: PaddlePaddle 3.3.1 gives these values for
  // paddle.uniform([4], 'float64', min=-1.0, max=1.0, seed=7) and the float32 ones for
  // min=-1.0, max=2.0.
  Tensor t = run_random("uniform_random", DType::kF64, {4}, 7);
  std::vector<double> want = {0.508770608305716, 0.8986024057852884, -0.7651714379309638,
                              0.7838263534249528};
  EXPECT_EQ(t.to_vector<double>(), want);
  Tensor f = run_random("uniform_random", DType::kF32, {4}, 7, {{"min", -1.0}, {"max", 2.0}});
  std::vector<float> want_f = {1.2631559371948242f, 1.8479034900665283f, -0.6477571725845337f,
                               1.6757395267486572f};
  EXPECT_EQ(f.to_vector<float>(), want_f);
}

TEST(UniformRandomOp, SameSeedSameValuesOtherSeedOthers) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    std::vector<double> a = as_f64(run_random("uniform_random", dtype, {100, 100}, 11));
    std::vector<double> b = as_f64(run_random("uniform_random", dtype, {100, 100}, 11));
    std::vector<double> c = as_f64(run_random("uniform_random", dtype, {100, 100}, 12));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
  }
}

TEST(UniformRandomOp, RangeAndMoments) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor t = run_random("uniform_random", dtype, {10000}, 5, {{"min", 2.0}, {"max", 5.0}});
    for (double x : as_f64(t)) {
      ASSERT_GE(x, 2.0);
      ASSERT_LT(x, 5.0);
    }
    // Uniform on [2, 5): mean 3.5, std 3 / sqrt(12).
    expect_moments(t, 3.5, 3.0 / std::sqrt(12.0), 0.04);
  }
}

TEST(UniformRandomOp, LargeTensorMatchesPrefix) {
  // Elements are drawn in order: element i has the same value whatever the size.
  std::vector<double> small = as_f64(run_random("uniform_random", DType::kF64, {1000}, 3));
  std::vector<double> big = as_f64(run_random("uniform_random", DType::kF64, {200000}, 3));
  EXPECT_TRUE(std::equal(small.begin(), small.end(), big.begin()));
}

TEST(UniformRandomOp, SeedZeroFollowsTheGlobalSeed) {
  kernels::set_global_seed(42);
  std::vector<double> a1 = as_f64(run_random("uniform_random", DType::kF32, {50}, 0));
  std::vector<double> a2 = as_f64(run_random("uniform_random", DType::kF32, {50}, 0));
  EXPECT_NE(a1, a2);  // successive draws differ
  kernels::set_global_seed(42);
  EXPECT_EQ(as_f64(run_random("uniform_random", DType::kF32, {50}, 0)), a1);
  EXPECT_EQ(as_f64(run_random("uniform_random", DType::kF32, {50}, 0)), a2);
}

TEST(UniformRandomOp, Errors) {
  EXPECT_THROW(run_random("uniform_random", DType::kI32, {3}, 1), Error);
  EXPECT_THROW(run_random("uniform_random", DType::kF32, {3}, 1, {{"min", 1.0}, {"max", 0.0}}),
               Error);
}

TEST(GaussianRandomOp, PinnedValuesForASeedArePaddles) {
  // paddle.tensor.random.gaussian([4], mean=1.0, std=2.0, dtype='float64', seed=7).
  Tensor t = run_random("gaussian_random", DType::kF64, {4}, 7, {{"mean", 1.0}, {"std", 2.0}});
  std::vector<double> want = {2.745390333870949, -0.9451257553037491, 2.0946199852971032,
                              3.910356321199769};
  std::vector<double> got = t.to_vector<double>();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-15) << "element " << i;
  // Values come in pairs; an odd count ends with the first half of the last pair.
  Tensor odd = run_random("gaussian_random", DType::kF64, {3}, 7, {{"mean", 1.0}, {"std", 2.0}});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(odd.to_vector<double>()[i], got[i]);
}

TEST(GaussianRandomOp, ReproducibleWithMoments) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    AttrList attrs = {{"mean", 0.5}, {"std", 2.0}};
    Tensor a = run_random("gaussian_random", dtype, {10000}, 9, attrs);
    Tensor b = run_random("gaussian_random", dtype, {10000}, 9, attrs);
    EXPECT_EQ(as_f64(a), as_f64(b));
    EXPECT_NE(as_f64(a), as_f64(run_random("gaussian_random", dtype, {10000}, 10, attrs)));
    expect_moments(a, 0.5, 2.0, 0.08);
  }
}

TEST(GaussianRandomOp, SeedZeroFollowsTheGlobalSeed) {
  kernels::set_global_seed(7);
  std::vector<double> a = as_f64(run_random("gaussian_random", DType::kF64, {9}, 0));
  kernels::set_global_seed(7);
  EXPECT_EQ(as_f64(run_random("gaussian_random", DType::kF64, {9}, 0)), a);
}

TEST(GaussianRandomOp, Errors) {
  EXPECT_THROW(run_random("gaussian_random", DType::kI64, {3}, 1), Error);
  EXPECT_THROW(run_random("gaussian_random", DType::kF64, {3}, 1, {{"std", -1.0}}), Error);
}

TEST(GlobalGenerator, SeededAsPaddleSeedsItsGenerator) {
  // paddle.seed(2023); paddle.rand([4]); paddle.randint(1, 5, [2]) (the seed's low 32 bits
  // count: paddle.seed(2**40 + 2023) draws the same).
  for (uint64_t seed : {uint64_t{2023}, (uint64_t{1} << 40) + 2023}) {
    kernels::set_global_seed(seed);
    Tensor u = run_random("uniform_random", DType::kF32, {4}, 0, {{"min", 0.0}, {"max", 1.0}});
    EXPECT_EQ(u.to_vector<float>(),
              (std::vector<float>{0.86583614f, 0.5201472f, 0.25960937f, 0.90525323f}));
    OpTest t("randint");
    t.attr("shape", std::vector<int64_t>{2}).attr("low", int64_t{1}).attr("high", int64_t{5});
    EXPECT_EQ(t.run().at("Out").at(0).to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
  }
}

TEST(GlobalGenerator, StateRoundTrips) {
  kernels::set_global_seed(3);
  const std::string state = kernels::global_generator_state();
  std::vector<double> a = as_f64(run_random("gaussian_random", DType::kF64, {5}, 0));
  kernels::set_global_generator_state(state);
  EXPECT_EQ(as_f64(run_random("gaussian_random", DType::kF64, {5}, 0)), a);
  EXPECT_THROW(kernels::set_global_generator_state("not a state"), Error);
}

Tensor run_randint(DType dtype, const Shape& shape, int64_t low, int64_t high, int64_t seed) {
  OpTest t("randint");
  t.attr("shape", shape.vec()).attr("low", low).attr("high", high).attr("seed", seed);
  t.attr("dtype", std::string(dtype_name(dtype)));
  return t.run().at("Out").at(0);
}

TEST(RandintOp, PaddlesValuesInRangeForEachDtype) {
  // paddle.seed(3); paddle.randint(-5, 5, [6]).
  kernels::set_global_seed(3);
  EXPECT_EQ(run_randint(DType::kI64, {6}, -5, 5, 0).to_vector<int64_t>(),
            (std::vector<int64_t>{-2, 1, -3, 1, -2, 0}));
  for (DType dtype : {DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor t = run_randint(dtype, {20000}, 10, 17, 4);
    EXPECT_EQ(t.dtype(), dtype);
    std::vector<int> count(7, 0);
    for (double v : as_f64(t)) {
      ASSERT_GE(v, 10);
      ASSERT_LT(v, 17);
      ++count[static_cast<int>(v) - 10];
    }
    for (int c : count) EXPECT_NEAR(c, 20000 / 7, 200);
    EXPECT_EQ(as_f64(run_randint(dtype, {20000}, 10, 17, 4)), as_f64(t));
  }
}

TEST(RandintOp, Errors) {
  EXPECT_THROW(run_randint(DType::kI64, {3}, 5, 5, 1), Error);
  EXPECT_THROW(run_randint(DType::kF32, {3}, 0, 5, 1), Error);
  EXPECT_THROW(run_randint(DType::kI32, {3}, 0, int64_t{1} << 40, 1), Error);
}

Tensor run_randperm(DType dtype, int64_t n, int64_t seed) {
  OpTest t("randperm");
  t.attr("n", n).attr("seed", seed).attr("dtype", std::string(dtype_name(dtype)));
  return t.run().at("Out").at(0);
}

TEST(RandpermOp, PaddlesPermutationForEachDtype) {
  // paddle.seed(3); paddle.randperm(8, 'int32').
  kernels::set_global_seed(3);
  EXPECT_EQ(run_randperm(DType::kI32, 8, 0).to_vector<int32_t>(),
            (std::vector<int32_t>{1, 4, 7, 3, 6, 0, 2, 5}));
  for (DType dtype : {DType::kI32, DType::kI64, DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    std::vector<double> v = as_f64(run_randperm(dtype, 1000, 9));
    EXPECT_EQ(v, as_f64(run_randperm(dtype, 1000, 9)));
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
    EXPECT_NE(v, sorted);
  }
  EXPECT_EQ(run_randperm(DType::kI64, 0, 1).numel(), 0);
}

TEST(RandpermOp, Errors) {
  EXPECT_THROW(run_randperm(DType::kI64, -1, 1), Error);
  EXPECT_THROW(run_randperm(DType::kBool, 3, 1), Error);
}

// Mean and standard deviation of a normal(mean, std) truncated to [a, b].
std::pair<double, double> truncated_moments(double mean, double std, double a, double b) {
  auto pdf = [](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); };
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  double al = (a - mean) / std, be = (b - mean) / std, z = cdf(be) - cdf(al);
  double m = (pdf(al) - pdf(be)) / z;
  double var = 1 + (al * pdf(al) - be * pdf(be)) / z - m * m;
  return {mean + std * m, std * std::sqrt(var)};
}

TEST(TruncatedGaussianRandomOp, BoundsAndMomentsOfTheTruncatedDensity) {
  struct Case {
    double mean, std, a, b;
  };
  // Symmetric, one-sided, far in a tail (above and below the mean), and wide.
  for (Case c : {Case{0, 1, -2, 2}, Case{0, 2, -1, 3}, Case{5, 1, -2, 2}, Case{-1, 0.5, 0.5, 2},
                 Case{1, 3, -100, 100}}) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " mean " + std::to_string(c.mean) + " a " +
                   std::to_string(c.a));
      AttrList attrs = {{"mean", c.mean}, {"std", c.std}, {"a", c.a}, {"b", c.b}};
      Tensor t = run_random("truncated_gaussian_random", dtype, {20000}, 3, attrs);
      for (double x : as_f64(t)) {
        ASSERT_GE(x, c.a);
        ASSERT_LE(x, c.b);
      }
      auto [m, s] = truncated_moments(c.mean, c.std, c.a, c.b);
      expect_moments(t, m, s, 0.03 * std::max(1.0, s));
    }
  }
}

TEST(TruncatedGaussianRandomOp, ReproducibleAndFloat32CloseToFloat64) {
  Tensor a = run_random("truncated_gaussian_random", DType::kF64, {1000}, 21);
  EXPECT_EQ(as_f64(a), as_f64(run_random("truncated_gaussian_random", DType::kF64, {1000}, 21)));
  EXPECT_NE(as_f64(a), as_f64(run_random("truncated_gaussian_random", DType::kF64, {1000}, 22)));
  // float32 draws the same uniform values at float32 precision.
  std::vector<double> f = as_f64(run_random("truncated_gaussian_random", DType::kF32, {1000}, 21));
  std::vector<double> d = as_f64(a);
  for (int i = 0; i < 1000; ++i) ASSERT_NEAR(f[i], d[i], 1e-5) << i;
  // The inverse CDF is exact: the values are those of the uniform draws.
  Tensor u = run_random("uniform_random", DType::kF64, {1000}, 21, {{"min", 0.0}, {"max", 1.0}});
  std::vector<double> uv = as_f64(u), tv = as_f64(a);
  // Each value is where the CDF reaches its draw's share of [cdf(-2), cdf(2)] (bisection).
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  for (int i = 0; i < 50; ++i) {
    double target = cdf(-2) + (cdf(2) - cdf(-2)) * uv[i], lo = -2, hi = 2;
    for (int step = 0; step < 200; ++step)
      (cdf(0.5 * (lo + hi)) < target ? lo : hi) = 0.5 * (lo + hi);
    EXPECT_NEAR(tv[i], lo, 1e-12) << i;
  }
}

TEST(TruncatedGaussianRandomOp, PaddlesValuesAboveAndAroundTheMean) {
  // paddle.seed(11); TruncatedNormal(mean=0.5, std=2.0, a=-1.0, b=3.0) on a [6] float64
  // parameter; then a = 1.0 > mean (the mirrored path) against the same formula.
  kernels::set_global_seed(11);
  AttrList attrs = {{"mean", 0.5}, {"std", 2.0}, {"a", -1.0}, {"b", 3.0}};
  std::vector<double> got =
      as_f64(run_random("truncated_gaussian_random", DType::kF64, {6}, 0, attrs));
  std::vector<double> want = {0.022846216507749317, 1.2093155953284969, 0.5460646783586908,
                              1.0782983975208231,   -0.994212310583027, 2.553639134426397};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  auto cdf = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  std::vector<double> u =
      as_f64(run_random("uniform_random", DType::kF64, {200}, 5, {{"min", 0.0}, {"max", 1.0}}));
  std::vector<double> above = as_f64(
      run_random("truncated_gaussian_random", DType::kF64, {200}, 5, {{"a", 1.0}, {"b", 3.0}}));
  for (int i = 0; i < 200; ++i) {
    EXPECT_NEAR(cdf(above[i]), cdf(1.0) + (cdf(3.0) - cdf(1.0)) * u[i], 1e-13) << i;
  }
}

TEST(TruncatedGaussianRandomOp, ZeroStdGivesTheClampedMean) {
  Tensor t = run_random("truncated_gaussian_random", DType::kF64, {5}, 1,
                        {{"mean", 3.0}, {"std", 0.0}, {"a", -1.0}, {"b", 1.0}});
  for (double x : as_f64(t)) EXPECT_EQ(x, 1.0);
}

TEST(TruncatedGaussianRandomOp, Errors) {
  EXPECT_THROW(run_random("truncated_gaussian_random", DType::kI64, {3}, 1), Error);
  EXPECT_THROW(run_random("truncated_gaussian_random", DType::kF64, {3}, 1, {{"std", -1.0}}),
               Error);
  EXPECT_THROW(
      run_random("truncated_gaussian_random", DType::kF64, {3}, 1, {{"a", 1.0}, {"b", 1.0}}),
      Error);
}

}  // namespace
}  // namespace skiff
