// reduce_max, reduce_min, reduce_prod, argmax, argmin and top_k: values against float64
// (or exact integer) references for many dim lists in every claimed dtype, small and
// threaded sizes, NaN and ties, zeros in products, gradients by finite differences and
// by hand where they split or vanish, shape inference with unknown dims, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/axis_blocks.h"
#include "skiff/kernels/cpu/reduce.h"
#include "skiff/kernels/cpu/top_k.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr DType kNumericTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};

bool is_float(DType t) { return t == DType::kF32 || t == DType::kF64; }

// Per element of the kept shape, the values of x it reduces, in order.
std::vector<std::vector<double>> groups(const Tensor& x64, uint32_t axes) {
  const Shape& s = x64.shape();
  const Shape kept = kernels::reduced_shape(s, axes, true);
  std::vector<std::vector<double>> out(kept.numel());
  std::vector<int64_t> idx(s.rank(), 0);
  for (int64_t i = 0; i < x64.numel(); ++i) {
    int64_t rest = i, o = 0;
    for (int d = s.rank() - 1; d >= 0; --d) {
      idx[d] = rest % s[d];
      rest /= s[d];
    }
    for (int d = 0; d < s.rank(); ++d) o = o * kept[d] + (((axes >> d) & 1u) ? 0 : idx[d]);
    out[o].push_back(x64.data<double>()[i]);
  }
  return out;
}

double max_of(const std::vector<double>& v) {
  double m = -std::numeric_limits<double>::infinity();
  for (double a : v) m = (a > m || std::isnan(a)) ? a : m;
  return m;
}
double min_of(const std::vector<double>& v) {
  double m = std::numeric_limits<double>::infinity();
  for (double a : v) m = (a < m || std::isnan(a)) ? a : m;
  return m;
}

// The reference of `type` over `axes`, in x's dtype with the shape keep_dim asks for.
// Integer products wrap like the kernel's (modulo 2^64, then the dtype's width).
Tensor reference(const std::string& type, const Tensor& x, uint32_t axes, bool keep_dim) {
  const auto g = groups(to_f64(x), axes);
  const Shape shape = kernels::reduced_shape(x.shape(), axes, keep_dim);
  if (type == "reduce_prod" && !is_float(x.dtype())) {
    std::vector<int64_t> out;
    for (const auto& v : g) {
      uint64_t p = 1;
      for (double a : v) p *= static_cast<uint64_t>(static_cast<int64_t>(a));
      out.push_back(static_cast<int64_t>(p));
    }
    Tensor t = Tensor::from_vector<int64_t>(shape, out);
    if (x.dtype() == DType::kI64) return t;
    Tensor narrow = Tensor::empty(shape, DType::kI32);
    for (int64_t i = 0; i < t.numel(); ++i)
      narrow.data<int32_t>()[i] = static_cast<int32_t>(t.data<int64_t>()[i]);
    return narrow;
  }
  std::vector<double> out;
  for (const auto& v : g) {
    if (type == "reduce_max") out.push_back(max_of(v));
    if (type == "reduce_min") out.push_back(min_of(v));
    if (type == "reduce_prod") {
      double p = 1;
      for (double a : v) p *= a;
      out.push_back(p);
    }
  }
  return from_f64(Tensor::from_vector<double>(shape, out), x.dtype());
}

struct Case {
  Shape x;
  std::vector<int64_t> dim;
  bool reduce_all = false;
};

OpTest reduce_op(const std::string& type, const Tensor& x, const Case& c, bool keep_dim) {
  OpTest t(type);
  t.input("X", x).attr("dim", c.dim).attr("keep_dim", keep_dim).attr("reduce_all", c.reduce_all);
  return t;
}

const Case kCases[] = {
    {{2, 3, 4}, {}},         {{2, 3, 4}, {0}},
    {{2, 3, 4}, {1}},        {{2, 3, 4}, {-1}},
    {{2, 3, 4}, {0, 2}},     {{2, 3, 4}, {1, 2}},
    {{2, 3, 4}, {1}, true},  {{1, 16}, {1}},
    {{2, 1, 3, 1}, {1, 2}},  {{}, {}},
    {{4, 0, 3}, {0}},        {{300, 300}, {}},
    {{300, 300}, {0}},       {{300, 300}, {1}},
    {{3, 40000}, {1}},       {{40000, 3}, {0}},
    {{20, 30, 200}, {0, 2}}, {{5, 33}, {1}},
};

TEST(ReduceExtremeOps, MaxMinProdMatchReferenceInEveryDtype) {
  for (const char* type : {"reduce_max", "reduce_min", "reduce_prod"}) {
    const bool prod = std::string(type) == "reduce_prod";
    for (DType dtype : kNumericTypes) {
      for (const Case& c : kCases) {
        for (bool keep_dim : {false, true}) {
          SCOPED_TRACE(str_cat(type, " ", dtype_name(dtype), " ", c.x, " dims ", c.dim.size(),
                               " keep_dim ", keep_dim));
          // Products: floats near 1 (no under/overflow at 90000 factors), ints in {1, 2}
          // (wrapping past 64 factors) or in [-3, 3] on small groups.
          double lo = -50, hi = 50;
          if (prod) {
            const bool small = c.x.numel() <= 64;
            lo = is_float(dtype) ? 0.99 : (small ? -3 : 1);
            hi = is_float(dtype) ? 1.01 : (small ? 4 : 3);
          }
          Tensor x = random_tensor(c.x, dtype, 1, lo, hi);
          const uint32_t axes = kernels::reduce_axes(c.x.rank(), c.dim, c.reduce_all);
          Tensor want = reference(type, x, axes, keep_dim);
          const double rtol = !prod ? 0 : dtype == DType::kF32 ? 2e-4 : 1e-12;
          reduce_op(type, x, c, keep_dim).check_output("Out", want, 0, rtol);
        }
      }
    }
  }
}

TEST(ReduceExtremeOps, NaNAndInfinities) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor x = from_f64(
        Tensor::from_vector<double>({3, 3}, {1, kNaN, 3, -inf, -inf, -inf, inf, 0, 2}), dtype);
    auto run = [&](const char* type) {
      OpTest t(type);
      t.input("X", x).attr("dim", std::vector<int64_t>{1});
      return t;
    };
    run("reduce_max")
        .check_output("Out", from_f64(Tensor::from_vector<double>({3}, {kNaN, -inf, inf}), dtype));
    run("reduce_min")
        .check_output("Out", from_f64(Tensor::from_vector<double>({3}, {kNaN, -inf, 0}), dtype));
    run("reduce_prod")
        .check_output("Out", from_f64(Tensor::from_vector<double>({3}, {kNaN, -inf, kNaN}), dtype));
  }
}

TEST(ReduceExtremeOps, EmptyReductions) {
  Tensor x = Tensor::zeros({4, 0, 3}, DType::kF32);
  auto out = reduce_op("reduce_prod", x, {{4, 0, 3}, {1}}, false).run();
  EXPECT_EQ(out["Out"][0].shape(), Shape({4, 3}));
  EXPECT_EQ(out["Out"][0].to_vector<float>(), std::vector<float>(12, 1.0f));
  expect_error(reduce_op("reduce_max", x, {{4, 0, 3}, {1}}, false),
               {"reduce_max", "[4, 0, 3]", "no elements to reduce"});
  // Nothing to reduce into: an empty output is fine.
  out = reduce_op("reduce_min", x, {{4, 0, 3}, {0}}, false).run();
  EXPECT_EQ(out["Out"][0].shape(), Shape({0, 3}));
}

TEST(ReduceExtremeOps, GradientsMatchFiniteDifferences) {
  const Case cases[] = {{{2, 3, 4}, {}},    {{2, 3, 4}, {1}},    {{2, 3, 4}, {0, 2}},
                        {{2, 3, 4}, {-1}},  {{3, 4}, {0}, true}, {{5}, {0}},
                        {{2, 1, 3}, {0, 1}}};
  for (const char* type : {"reduce_max", "reduce_min", "reduce_prod"}) {
    for (const Case& c : cases) {
      for (bool keep_dim : {false, true}) {
        SCOPED_TRACE(str_cat(type, " ", c.x, " keep_dim ", keep_dim));
        // Distinct random values: no ties for max/min; products away from 0.
        Tensor x = random_tensor(c.x, DType::kF64, 3, 0.5, 2);
        reduce_op(type, x, c, keep_dim).check_grad({"X"});
      }
    }
  }
}

TEST(ReduceExtremeOps, ProdGradientWithZeros) {
  // Groups with no zero, one zero and two zeros; the product is smooth there, so finite
  // differences check the zero handling too.
  Tensor x = Tensor::from_vector<double>({3, 3}, {0, 2, 3, 0, 0, 5, 1, 2, 4});
  OpTest t = reduce_op("reduce_prod", x, {{3, 3}, {1}}, false);
  t.check_grad({"X"});
  OpTest grad("reduce_prod_grad");
  grad.input("X", from_f64(x, DType::kF32))
      .input("Out@GRAD", Tensor::from_vector<float>({3}, {1, 1, 2}))
      .attr("dim", std::vector<int64_t>{1})
      .output("X@GRAD");
  grad.check_output("X@GRAD", Tensor::from_vector<float>({3, 3}, {6, 0, 0, 0, 0, 0, 16, 8, 4}));
}

TEST(ReduceExtremeOps, TiesSplitTheGradient) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    SCOPED_TRACE(dtype_name(dtype));
    Tensor x = from_f64(Tensor::from_vector<double>({2, 3}, {1, 3, 3, 2, 2, 2}), dtype);
    OpTest grad("reduce_max_grad");
    grad.input("X", x)
        .input("Out", from_f64(Tensor::from_vector<double>({2}, {3, 2}), dtype))
        .input("Out@GRAD", from_f64(Tensor::from_vector<double>({2}, {1, 6}), dtype))
        .attr("dim", std::vector<int64_t>{1})
        .output("X@GRAD");
    grad.check_output("X@GRAD",
                      from_f64(Tensor::from_vector<double>({2, 3}, {0, 0.5, 0.5, 2, 2, 2}), dtype));
    // Columns (the reduced dim outermost), keep_dim output.
    OpTest cols("reduce_min_grad");
    cols.input("X", from_f64(Tensor::from_vector<double>({2, 2}, {1, 5, 1, 4}), dtype))
        .input("Out", from_f64(Tensor::from_vector<double>({1, 2}, {1, 4}), dtype))
        .input("Out@GRAD", from_f64(Tensor::from_vector<double>({1, 2}, {4, 3}), dtype))
        .attr("dim", std::vector<int64_t>{0})
        .attr("keep_dim", true)
        .output("X@GRAD");
    cols.check_output("X@GRAD", from_f64(Tensor::from_vector<double>({2, 2}, {2, 0, 2, 3}), dtype));
  }
}

TEST(ReduceExtremeOps, ThreadedGradients) {
  // [kept, reduced] and [reduced, kept] at sizes that split across threads.
  for (const Case& c : {Case{{300, 300}, {1}}, Case{{300, 300}, {0}}, Case{{300, 300}, {}}}) {
    SCOPED_TRACE(str_cat(c.x, " dims ", c.dim.size()));
    Tensor x = random_tensor(c.x, DType::kF64, 9, 0.9, 1.1);
    const uint32_t axes = kernels::reduce_axes(2, c.dim, false);
    Tensor out = reference("reduce_max", x, axes, false);
    Tensor g = random_tensor(out.shape(), DType::kF64, 10);
    const auto grouped = groups(x, axes);
    Tensor want = Tensor::zeros(c.x, DType::kF64);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t r = i / 300, col = i % 300;
      const int64_t o = c.dim.empty() ? 0 : (c.dim[0] == 1 ? r : col);
      if (x.data<double>()[i] == out.data<double>()[o])
        want.data<double>()[i] = g.data<double>()[o];
    }
    OpTest t("reduce_max_grad");
    t.input("X", x).input("Out", out).input("Out@GRAD", g).attr("dim", c.dim).output("X@GRAD");
    t.check_output("X@GRAD", want, 0, 0);
    // Products near 1: X@GRAD = g * Out / X.
    Tensor prod = reference("reduce_prod", x, axes, false);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t r = i / 300, col = i % 300;
      const int64_t o = c.dim.empty() ? 0 : (c.dim[0] == 1 ? r : col);
      want.data<double>()[i] = g.data<double>()[o] * prod.data<double>()[o] / x.data<double>()[i];
    }
    OpTest p("reduce_prod_grad");
    p.input("X", x).input("Out@GRAD", g).attr("dim", c.dim).output("X@GRAD");
    p.check_output("X@GRAD", want, 1e-12, 1e-9);
  }
}

TEST(ReduceExtremeOps, Errors) {
  Tensor x = random_tensor({2, 3}, DType::kF32, 4);
  expect_error(reduce_op("reduce_max", x, {{2, 3}, {2}}, false),
               {"reduce_max", "dim 2 is out of range for a rank-2"});
  expect_error(
      reduce_op("reduce_prod", Tensor::from_vector<bool>({2}, {true, false}), {{2}, {}}, false),
      {"reduce_prod", "numeric", "bool"});
  OpTest grad("reduce_max_grad");
  grad.input("X", x)
      .input("Out", Tensor::from_vector<float>({3}, {1, 2, 3}))
      .input("Out@GRAD", Tensor::from_vector<float>({2}, {1, 2}))
      .attr("dim", std::vector<int64_t>{1})
      .output("X@GRAD");
  expect_error(grad, {"Out [3] does not match X [2, 3]"});
}

// ---- argmax, argmin ----

// The first extreme (or first NaN) along `axis` of x, as int64 of the reduced shape.
Tensor reference_arg(const Tensor& x, bool largest, int axis, bool keepdims) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  const kernels::AxisBlocks layout(s, axis);
  const int64_t outer = layout.outer, n = layout.n, inner = layout.inner;
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      int64_t best = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double v = a.data<double>()[(o * n + i) * inner + j];
        const double b = a.data<double>()[(o * n + best) * inner + j];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (largest ? v > b : v < b)) best = i;
      }
      out.push_back(best);
    }
  }
  return Tensor::from_vector<int64_t>(
      kernels::arg_extreme_shape("argmax", s, axis, keepdims, false), out);
}

TEST(ArgExtremeOps, MatchReference) {
  struct ArgCase {
    Shape x;
    int64_t axis;
  };
  const ArgCase cases[] = {{{7}, 0},        {{3, 5}, -1},     {{3, 5}, 0},
                           {{2, 3, 4}, 1},  {{}, -1},         {{300, 300}, 0},
                           {{300, 300}, 1}, {{4, 600, 5}, 1}, {{2, 1000}, 0}};
  for (bool largest : {true, false}) {
    for (DType dtype : kNumericTypes) {
      for (const ArgCase& c : cases) {
        for (bool keepdims : {false, true}) {
          SCOPED_TRACE(str_cat(largest ? "argmax " : "argmin ", dtype_name(dtype), " ", c.x,
                               " axis ", c.axis, " keepdims ", keepdims));
          // Integers in [-5, 5): many ties, which go to the first index.
          Tensor x = random_tensor(c.x, dtype, 5, -5, 5);
          const int axis = c.axis < 0 ? static_cast<int>(c.axis) + std::max(c.x.rank(), 1)
                                      : static_cast<int>(c.axis);
          OpTest t(largest ? "argmax" : "argmin");
          t.input("X", x).attr("axis", c.axis).attr("keepdims", keepdims);
          t.check_output("Out", reference_arg(x, largest, c.x.rank() ? axis : 0, keepdims));
        }
      }
    }
  }
}

TEST(ArgExtremeOps, FlattenAndNaN) {
  Tensor x = Tensor::from_vector<double>({2, 3}, {1, 9, 2, 9, -4, -4});
  OpTest flat("argmax");
  flat.input("X", x).attr("flatten", true);
  flat.check_output("Out", Tensor::scalar<int64_t>(1));
  OpTest flat_min("argmin");
  flat_min.input("X", x).attr("flatten", true).attr("keepdims", true);
  flat_min.check_output("Out", Tensor::from_vector<int64_t>({1, 1}, {4}));
  for (const char* type : {"argmax", "argmin"}) {
    SCOPED_TRACE(type);
    OpTest nan(type);
    nan.input("X", Tensor::from_vector<float>({2, 3}, {1, NAN, NAN, 5, 4, 6}))
        .attr("axis", int64_t{1});
    nan.check_output("Out",
                     Tensor::from_vector<int64_t>({2}, {1, std::string(type) == "argmax" ? 2 : 1}));
    OpTest cols(type);
    cols.input("X", Tensor::from_vector<float>({2, 2}, {1, NAN, NAN, 3})).attr("axis", int64_t{0});
    cols.check_output("Out", Tensor::from_vector<int64_t>({2}, {1, 0}));
  }
}

TEST(ArgExtremeOps, ShapesAndErrors) {
  EXPECT_EQ(kernels::arg_extreme_shape("argmax", {-1, 4, 5}, 1, false, false), Shape({-1, 5}));
  EXPECT_EQ(kernels::arg_extreme_shape("argmax", {-1, 4, 5}, -1, true, false), Shape({-1, 4, 1}));
  EXPECT_EQ(kernels::arg_extreme_shape("argmax", {-1, 4}, 0, true, true), Shape({1, 1}));
  OpTest axis("argmin");
  axis.input("X", random_tensor({2, 3}, DType::kF32, 6)).attr("axis", int64_t{-3});
  expect_error(axis, {"argmin", "axis -3 is out of range"});
  OpTest empty("argmax");
  empty.input("X", Tensor::zeros({3, 0}, DType::kF32));
  expect_error(empty, {"argmax", "[3, 0]", "no elements along the axis"});
}

// ---- top_k ----

// Indices of the k best along `axis` (best first when sorted, else by position) and
// their values, by a full stable sort in float64 with NaN above every number.
std::pair<Tensor, Tensor> reference_top_k(const Tensor& x, int64_t k, int axis, bool largest,
                                          bool sorted) {
  const Tensor a = to_f64(x);
  const Shape& s = x.shape();
  const kernels::AxisBlocks layout(s, axis);
  const int64_t outer = layout.outer, n = layout.n, inner = layout.inner;
  Shape out_shape = s;
  if (s.rank()) out_shape[axis] = k;
  Tensor values = Tensor::empty(out_shape, DType::kF64);
  Tensor indices = Tensor::empty(out_shape, DType::kI64);
  auto key = [](double v) { return std::isnan(v) ? std::numeric_limits<double>::infinity() : v; };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t i) { return a.data<double>()[(o * n + i) * inner + j]; };
      std::vector<int64_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
        const bool nan_p = std::isnan(at(p)), nan_q = std::isnan(at(q));
        if (nan_p != nan_q) return largest ? nan_p : nan_q;
        return largest ? key(at(p)) > key(at(q)) : key(at(p)) < key(at(q));
      });
      order.resize(k);
      if (!sorted) std::sort(order.begin(), order.end());
      for (int64_t t = 0; t < k; ++t) {
        values.data<double>()[(o * k + t) * inner + j] = at(order[t]);
        indices.data<int64_t>()[(o * k + t) * inner + j] = order[t];
      }
    }
  }
  return {from_f64(values, x.dtype()), indices};
}

OpTest top_k_op(const Tensor& x, int64_t k, int64_t axis, bool largest, bool sorted) {
  OpTest t("top_k");
  t.input("X", x)
      .attr("k", k)
      .attr("axis", axis)
      .attr("largest", largest)
      .attr("sorted", sorted)
      .output("Out")
      .output("Indices");
  return t;
}

TEST(TopKOps, MatchesReference) {
  struct TopKCase {
    Shape x;
    int64_t k, axis;
  };
  const TopKCase cases[] = {{{7}, 3, 0},    {{3, 5}, 2, -1},      {{3, 5}, 5, -1},
                            {{3, 5}, 0, 1}, {{4, 6}, 2, 0},       {{2, 5, 3}, 3, 1},
                            {{}, 1, -1},    {{64, 1024}, 10, -1}, {{500, 40}, 7, 0}};
  for (DType dtype : kNumericTypes) {
    for (const TopKCase& c : cases) {
      for (bool largest : {true, false}) {
        for (bool sorted : {true, false}) {
          SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " k ", c.k, " axis ", c.axis,
                               largest ? " largest" : " smallest", sorted ? " sorted" : ""));
          Tensor x = random_tensor(c.x, dtype, 7, -20, 20);  // ties among the integers
          const int axis = c.axis < 0 ? static_cast<int>(c.axis) + std::max(c.x.rank(), 1)
                                      : static_cast<int>(c.axis);
          auto [values, indices] = reference_top_k(x, c.k, axis, largest, sorted);
          OpTest t = top_k_op(x, c.k, c.axis, largest, sorted);
          t.check_output("Out", values, 0, 0);
          t.check_output("Indices", indices);
        }
      }
    }
  }
}

TEST(TopKOps, NaNRanksFirst) {
  Tensor x = Tensor::from_vector<float>({5}, {3, NAN, 7, 3, 1});
  OpTest largest = top_k_op(x, 3, -1, true, true);
  largest.check_output("Indices", Tensor::from_vector<int64_t>({3}, {1, 2, 0}));
  OpTest smallest = top_k_op(x, 3, -1, false, true);
  smallest.check_output("Out", Tensor::from_vector<float>({3}, {1, 3, 3}));
  smallest.check_output("Indices", Tensor::from_vector<int64_t>({3}, {4, 0, 3}));
}

TEST(TopKOps, Gradients) {
  for (int64_t axis : {-1, 0, 1}) {
    SCOPED_TRACE(str_cat("axis ", axis));
    top_k_op(random_tensor({3, 5, 4}, DType::kF64, 8), 2, axis, true, true).check_grad({"X"});
    top_k_op(random_tensor({3, 5, 4}, DType::kF64, 9), 3, axis, false, false).check_grad({"X"});
  }
  OpTest grad("top_k_grad");
  grad.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Indices", Tensor::from_vector<int64_t>({2, 2}, {2, 0, 1, 2}))
      .input("Out@GRAD", Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}))
      .output("X@GRAD");
  grad.check_output("X@GRAD", Tensor::from_vector<float>({2, 3}, {2, 0, 1, 0, 3, 4}));
}

TEST(TopKOps, ShapesAndErrors) {
  EXPECT_EQ(kernels::top_k_shape({-1, 8}, 3, -1), Shape({-1, 3}));
  EXPECT_EQ(kernels::top_k_shape({8, -1}, 3, -1), Shape({8, 3}));
  Tensor x = random_tensor({2, 3}, DType::kF32, 10);
  expect_error(top_k_op(x, 4, -1, true, true), {"top_k", "k = 4 is out of range", "[2, 3]"});
  expect_error(top_k_op(x, -1, -1, true, true), {"top_k", "k = -1 is out of range"});
  expect_error(top_k_op(x, 1, 2, true, true), {"top_k", "axis 2 is out of range"});
  OpTest grad("top_k_grad");
  grad.input("X", Tensor::zeros({2, 3}, DType::kF32))
      .input("Indices", Tensor::from_vector<int64_t>({2, 1}, {0, 3}))
      .input("Out@GRAD", Tensor::from_vector<float>({2, 1}, {1, 2}))
      .output("X@GRAD");
  expect_error(grad, {"top_k_grad", "index 3 is out of range"});
}

}  // namespace
}  // namespace skiff
