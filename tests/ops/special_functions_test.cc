// The special functions of the unary and binary math families: the modified Bessel functions
// i0, i0e, i1, i1e, polygamma, frexp, the regularized incomplete gamma functions gammainc and
// gammaincc, and nextafter: values against tabulated float64 references (both sides of the
// series / asymptotic switch, negative arguments, poles), gradients by finite differences,
// and errors.
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

Tensor values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  return from_f64(Tensor::from_vector<double>(shape, v), dtype);
}

const std::vector<double> kBesselX = {-25, -3.5, -0.5, 0, 0.25, 1, 7.5, 19.9, 20.1, 50};

TEST(SpecialFunctionsOp, BesselFunctionsMatchTables) {
  const std::vector<std::pair<const char*, std::vector<double>>> tables = {
      {"i0",
       {5774560606.4663105, 7.3782034322254795, 1.0634833707413236, 1.0, 1.015686141223608,
        1.2660658777520082, 268.1613115151893, 39513376.52006682, 48017874.1071365,
        2.9325537838493355e+20}},
      {"i0e",
       {0.08019677354743669, 0.22280243801077917, 0.6450352704491501, 1.0, 0.7910171621397194,
        0.46575960759364043, 0.1483158300773955, 0.09000858886438959, 0.08955376362061344,
        0.056561626647454184}},
      {"i1",
       {-5657865129.878702, -6.205834922258364, -0.25789430539089636, 0.0, 0.12597910894546793,
        0.5651591039924851, 249.58436542268808, 38507423.874862276, 46807739.533029884,
        2.9030785901035566e+20}},
      {"i1e",
       {-0.07857611331929278, -0.18739997660304997, -0.15642080318487173, 0.0, 0.09811262869736825,
        0.2079104153497085, 0.13804121154855417, 0.08771710213170608, 0.0872968518432016,
        0.055993123892895395}},
  };
  for (const auto& [type, want] : tables) {
    SCOPED_TRACE(type);
    for (DType dt : {DType::kF32, DType::kF64}) {
      OpTest t(type);
      t.input("X", values({10}, kBesselX, dt));
      t.check_output("Out", values({10}, want, dt), 0, dt == DType::kF64 ? 1e-13 : 2e-6);
    }
  }
}

TEST(SpecialFunctionsOp, BesselGradients) {
  // away from 0 (the scaled forms have a kink in |x| there); the unscaled ones where their
  // values stay small enough for finite differences, the scaled ones past the series'
  // switch to the asymptotic form too
  const Tensor small = values({4}, {-3.2, -0.7, 0.4, 2.5}, DType::kF64);
  const Tensor wide = values({6}, {-21, -3.2, -0.7, 0.4, 2.5, 22}, DType::kF64);
  for (const char* type : {"i0", "i0e", "i1", "i1e"}) {
    SCOPED_TRACE(type);
    OpTest t(type);
    t.input("X", type[2] == 'e' ? wide : small);
    t.check_grad({"X"});
  }
  // i1'(0) = i1e'(0) = 1/2 by the limit
  for (const char* type : {"i1", "i1e"}) {
    OpTest t(type);
    t.input("X", values({1}, {0}, DType::kF64));
    t.check_grad({"X"});
  }
}

TEST(SpecialFunctionsOp, PolygammaMatchesTablesAndDifferentiates) {
  const Tensor x = values({4}, {0.3, 2.5, -1.5, 15}, DType::kF64);
  const std::vector<std::pair<int64_t, std::vector<double>>> tables = {
      {2, {-75.27253658872601, -0.23620405164172736, -0.23620405164172825, -0.004750602716551555}},
      {3, {743.1417646550497, 0.2239058488172521, 194.59427621918758, 0.0006544797782827372}},
      {5, {164634.846099223, 0.5785691785671833, 15381.648528026304, 3.72221509496195e-05}},
  };
  for (const auto& [n, want] : tables) {
    SCOPED_TRACE(n);
    OpTest t("polygamma");
    t.input("X", x).attr("n", n);
    t.check_output("Out", values({4}, want, DType::kF64), 0, 1e-12);
    OpTest g("polygamma");
    g.input("X", values({3}, {1.3, 2.5, 15}, DType::kF64)).attr("n", n);
    g.check_grad({"X"});
  }
  for (int64_t n : {0, 1}) {  // digamma and trigamma themselves, in float32 too
    OpTest t("polygamma");
    t.input("X", values({2}, {0.5, 3}, DType::kF32)).attr("n", n);
    const double euler = 0.57721566490153286;
    t.check_output("Out",
                   n == 0 ? values({2}, {-euler - 2 * std::log(2.0), 1.5 - euler}, DType::kF32)
                          : values({2}, {M_PI * M_PI / 2, M_PI * M_PI / 6 - 1.25}, DType::kF32),
                   0, 1e-6);
  }
  OpTest pole("polygamma");
  pole.input("X", values({1}, {0}, DType::kF64)).attr("n", int64_t{3});
  pole.check_output("Out", values({1}, {std::numeric_limits<double>::infinity()}, DType::kF64));
}

TEST(SpecialFunctionsOp, FrexpSplitsMantissaAndExponent) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (DType dt : {DType::kF32, DType::kF64}) {
    OpTest t("frexp");
    t.input("X", values({7}, {0, 1, -3.5, 8, 0.3, inf, nan}, dt))
        .output("Mantissa")
        .output("Exponent");
    t.check_output("Mantissa", values({7}, {0, 0.5, -0.875, 0.5, 0.6, inf, nan}, dt), 0, 1e-7);
    t.check_output("Exponent", values({7}, {0, 1, 2, 4, -1, 1, nan}, dt), 0, 0);
  }
}

TEST(SpecialFunctionsOp, IncompleteGammaMatchesTables) {
  const std::vector<double> a = {0.5, 1, 3, 10, 100, 0.01}, y = {0.2, 1, 5, 7, 110, 3};
  // by 30-digit arithmetic
  const std::vector<double> p = {0.4729107431344619,  0.6321205588285577, 0.8753479805169189,
                                 0.16950406276132657, 0.8417213299399129, 0.9998670286434298};
  const std::vector<double> q = {0.5270892568655381, 0.36787944117144233, 0.12465201948308115,
                                 0.8304959372386734, 0.15827867006008708, 0.0001329713565701555};
  for (DType dt : {DType::kF32, DType::kF64}) {
    const double rtol = dt == DType::kF64 ? 1e-11 : 1e-5;
    OpTest lower("gammainc");
    lower.input("X", values({6}, a, dt)).input("Y", values({6}, y, dt));
    lower.check_output("Out", values({6}, p, dt), 0, rtol);
    OpTest upper("gammaincc");
    upper.input("X", values({6}, a, dt)).input("Y", values({6}, y, dt));
    upper.check_output("Out", values({6}, q, dt), 0, rtol);
  }
  // Paddle's edges: a = 0 or y = 0 give P = 0, Q = 1; negative arguments give NaN
  OpTest edges("gammaincc");
  edges.input("X", values({3}, {0, 2, -1}, DType::kF64))
      .input("Y", values({3}, {1, 0, 1}, DType::kF64));
  edges.check_output("Out", values({3}, {1, 1, std::nan("")}, DType::kF64), 0, 0);
}

TEST(SpecialFunctionsOp, IncompleteGammaDifferentiatesTheBoundAndBroadcasts) {
  for (const char* type : {"gammainc", "gammaincc"}) {
    SCOPED_TRACE(type);
    OpTest t(type);
    t.input("X", random_tensor({3, 1}, DType::kF64, 1, 0.5, 4))
        .input("Y", random_tensor({4}, DType::kF64, 2, 0.3, 6));
    t.check_grad({"Y"});
  }
}

TEST(SpecialFunctionsOp, NextafterStepsOneUlp) {
  OpTest t("nextafter");
  t.input("X", values({2, 1}, {1, 2}, DType::kF32)).input("Y", values({2}, {2, 1}, DType::kF32));
  // [[1 -> 2, 1 -> 1], [2 -> 2, 2 -> 1]]
  const double up = std::nextafter(1.0f, 2.0f), down = std::nextafter(2.0f, 1.0f);
  t.check_output("Out", values({2, 2}, {up, 1, 2, down}, DType::kF32), 0, 0);
  OpTest same("nextafter");
  same.input("X", values({1}, {1}, DType::kF64)).input("Y", values({1}, {1}, DType::kF64));
  same.check_output("Out", values({1}, {1}, DType::kF64), 0, 0);
}

TEST(SpecialFunctionsOp, Errors) {
  const Tensor ints = values({2}, {1, 2}, DType::kI64);
  OpTest i0("i0");
  expect_error(i0.input("X", ints), {"i0", "float32 or float64", "int64"});
  OpTest pg("polygamma");
  expect_error(pg.input("X", values({1}, {1}, DType::kF32)).attr("n", int64_t{-1}),
               {"polygamma", "n must be >= 0", "-1"});
  OpTest fr("frexp");
  expect_error(fr.input("X", ints), {"frexp", "float32 or float64", "int64"});
  OpTest gi("gammainc");
  expect_error(gi.input("X", ints).input("Y", ints), {"gammainc", "float32 or float64", "int64"});
  OpTest na("nextafter");
  expect_error(
      na.input("X", values({1}, {1}, DType::kF32)).input("Y", values({1}, {1}, DType::kF64)),
      {"nextafter", "float32", "float64"});
}

}  // namespace
}  // namespace skiff
