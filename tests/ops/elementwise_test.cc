// elementwise_add/sub/mul/div/max/min and scale: values against a float64 reference
// with broadcasting (numpy rule and the axis attr) in every claimed dtype, shape
// inference with unknown dims, errors naming the shapes, in-place use, and gradients
// (finite differences, broadcast gradients summed, f32 grad ops against references).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "skiff/kernels/cpu/elementwise.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;

using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr DType kAllTypes[] = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};
constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

struct BinaryCase {
  const char* type;
  std::function<double(double, double)> f;
};

double trunc_div(double a, double b) { return std::trunc(a / b); }

const BinaryCase kOps[] = {
    {"elementwise_add", [](double a, double b) { return a + b; }},
    {"elementwise_sub", [](double a, double b) { return a - b; }},
    {"elementwise_mul", [](double a, double b) { return a * b; }},
    {"elementwise_div", [](double a, double b) { return a / b; }},
    {"elementwise_max", [](double a, double b) { return std::max(a, b); }},
    {"elementwise_min", [](double a, double b) { return std::min(a, b); }},
};

// Where operand dim `d` of a rank-`r` operand sits in the rank-`out_rank` result:
// right-aligned for axis -1, starting at `axis` for the lower-rank operand otherwise.
int lead_of(int r, int other_rank, int axis) {
  int out_rank = std::max(r, other_rank);
  return (axis == -1 || r >= other_rank) ? out_rank - r : axis;
}

// Broadcasts x and y (float64) and applies f, by explicit multi-indices.
Tensor reference_binary(const Tensor& x, const Tensor& y, int axis,
                        const std::function<double(double, double)>& f) {
  const int rx = x.rank(), ry = y.rank(), rank = std::max(rx, ry);
  const int lx = lead_of(rx, ry, axis), ly = lead_of(ry, rx, axis);
  auto dim_of = [&](const Tensor& t, int lead, int d) {
    return (d >= lead && d < lead + t.rank()) ? t.dim(d - lead) : 1;
  };
  Shape out_shape;
  for (int d = 0; d < rank; ++d) out_shape.push_back(std::max(dim_of(x, lx, d), dim_of(y, ly, d)));
  Tensor out = Tensor::empty(out_shape, DType::kF64);
  auto offset = [&](const Tensor& t, int lead, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (int d = lead; d < lead + t.rank(); ++d)
      off = off * t.dim(d - lead) + (t.dim(d - lead) == 1 ? 0 : idx[d]);
    return off;
  };
  std::vector<int64_t> idx(rank);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    out.data<double>()[i] =
        f(x.data<double>()[offset(x, lx, idx)], y.data<double>()[offset(y, ly, idx)]);
  }
  return out;
}

struct ShapeCase {
  Shape x, y;
  int axis;
};

const ShapeCase kShapes[] = {
    {{3, 4}, {3, 4}, -1},        {{1, 16}, {16}, -1}, {{2, 3, 4}, {3, 1}, -1},
    {{2, 3, 4}, {}, -1},         {{}, {2, 3}, -1},    {{4, 1}, {1, 5}, -1},
    {{16}, {2, 16}, -1},         {{2, 3, 4}, {3}, 1}, {{2, 3, 4, 5}, {3, 4}, 1},
    {{3}, {2, 3, 4}, 1},         {{2, 3}, {2, 1}, 0}, {{300, 257}, {257}, -1},
    {{300, 300}, {300, 300}, -1}};

// Inputs in the dtype: floats in [-2, 2) (divisors in [0.5, 2)), integers in [-10, 10)
// (divisors in [1, 6)).
Tensor operand(const Shape& s, DType dtype, uint64_t seed, bool divisor) {
  bool integer = !is_floating(dtype);
  double lo = divisor ? (integer ? 1 : 0.5) : (integer ? -10 : -2);
  double hi = divisor ? (integer ? 6 : 2) : (integer ? 10 : 2);
  return random_tensor(s, dtype, seed, lo, hi);
}

TEST(ElementwiseOps, ForwardMatchesReferenceForEveryDtypeAndBroadcast) {
  for (const BinaryCase& op : kOps) {
    const bool div = std::string(op.type) == "elementwise_div";
    for (DType dtype : kAllTypes) {
      const bool integer = !is_floating(dtype);
      auto f = (div && integer) ? std::function<double(double, double)>(trunc_div) : op.f;
      for (const ShapeCase& c : kShapes) {
        SCOPED_TRACE(
            str_cat(op.type, " ", dtype_name(dtype), " ", c.x, " ", c.y, " axis ", c.axis));
        Tensor x = operand(c.x, dtype, 1, false), y = operand(c.y, dtype, 2, div);
        Tensor want = from_f64(reference_binary(to_f64(x), to_f64(y), c.axis, f), dtype);
        OpTest t(op.type);
        t.input("X", x).input("Y", y).attr("axis", int64_t{c.axis});
        t.check_output("Out", want, integer ? 0 : 1e-6, integer ? 0 : 1e-6);
      }
    }
  }
}

// fuse_activation: the activation over the op's result, for every op and float dtype, on
// equal shapes (the one-pass loop, small and threaded) and broadcasts (the two-step path).
TEST(ElementwiseOps, FusedActivationIsTheActivationOfTheResult) {
  const std::pair<const char*, std::function<double(double)>> kActs[] = {
      {"relu", [](double v) { return v > 0 ? v : 0; }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }}};
  for (const BinaryCase& op : kOps) {
    const bool div = std::string(op.type) == "elementwise_div";
    for (const auto& [act, g] : kActs) {
      for (DType dtype : kFloatTypes) {
        for (const ShapeCase& c : {kShapes[0], kShapes[2], kShapes[7], kShapes[12]}) {
          SCOPED_TRACE(str_cat(op.type, " + ", act, " ", dtype_name(dtype), " ", c.x, " ", c.y,
                               " axis ", c.axis));
          Tensor x = operand(c.x, dtype, 1, false), y = operand(c.y, dtype, 2, div);
          auto f = [&, g = g](double a, double b) { return g(op.f(a, b)); };
          Tensor want = from_f64(reference_binary(to_f64(x), to_f64(y), c.axis, f), dtype);
          OpTest t(op.type);
          t.input("X", x).input("Y", y).attr("axis", int64_t{c.axis});
          t.attr("fuse_activation", std::string(act));
          t.check_output("Out", want, 1e-6, 1e-6);
        }
      }
    }
  }
}

TEST(ElementwiseOps, FusedActivationErrorsNameTheActivation) {
  OpTest unknown("elementwise_add");
  unknown.input("X", random_tensor({2, 3}, DType::kF32, 1))
      .input("Y", random_tensor({2, 3}, DType::kF32, 2))
      .attr("fuse_activation", std::string("gelu"));
  testing::expect_error(unknown, {"fuse_activation 'gelu'", "relu, tanh, sigmoid"});
  OpTest integer("elementwise_mul");
  integer.input("X", random_tensor({4}, DType::kI32, 1))
      .input("Y", random_tensor({4}, DType::kI32, 2))
      .attr("fuse_activation", std::string("relu"));
  testing::expect_error(integer, {"fuse_activation 'relu'", "int32"});

  Program prog;
  BlockBuilder b(&prog);
  const std::string x = b.data("x", DType::kF64, {3});
  const std::string w = b.persistable("w", DType::kF64, {3});
  b.op("elementwise_mul", {{"X", {x}}, {"Y", {w}}}, {{"Out", {"y"}}},
       {{"fuse_activation", std::string("tanh")}});
  const std::string message = error_of([&] { append_backward(prog, "y"); });
  EXPECT_NE(message.find("fuse_activation 'tanh'"), std::string::npos) << message;
  EXPECT_NE(message.find("no gradient"), std::string::npos) << message;
}

TEST(ElementwiseOps, IntegerDivisionTruncatesAndNeverTraps) {
  OpTest t("elementwise_div");
  t.input("X", Tensor::from_vector<int32_t>({4}, {7, -7, std::numeric_limits<int32_t>::min(), 9}))
      .input("Y", Tensor::from_vector<int32_t>({4}, {2, 2, -1, -3}));
  t.check_output(
      "Out", Tensor::from_vector<int32_t>({4}, {3, -3, std::numeric_limits<int32_t>::min(), -3}));
}

TEST(ElementwiseOps, IntegerDivisionByZeroIsAnError) {
  OpTest t("elementwise_div");
  t.input("X", Tensor::from_vector<int64_t>({2}, {1, 2}))
      .input("Y", Tensor::from_vector<int64_t>({2}, {1, 0}));
  try {
    t.run();
    FAIL() << "expected skiff::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
  }
}

TEST(ElementwiseOps, MaxAndMinPropagateNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* type : {"elementwise_max", "elementwise_min"}) {
    OpTest t(type);
    t.input("X", Tensor::from_vector<double>({3}, {nan, 1, 2}))
        .input("Y", Tensor::from_vector<double>({3}, {1, nan, 2}));
    t.check_output("Out", Tensor::from_vector<double>({3}, {nan, nan, 2}));
  }
}

// The message of the skiff::Error that `fn` throws ("" when it throws none).

TEST(ElementwiseOps, UnbroadcastableShapesFailNamingBothShapes) {
  OpTest t("elementwise_add");
  t.input("X", random_tensor({2, 3}, DType::kF32, 1))
      .input("Y", random_tensor({4}, DType::kF32, 2));
  EXPECT_THROW(t.run(), Error);
  std::string msg = error_of([&] { t.run(); });
  EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;

  std::string direct = error_of([] { kernels::broadcast_shape({5, 2}, {3, 2}); });
  EXPECT_NE(direct.find("[5, 2]"), std::string::npos) << direct;
  EXPECT_NE(direct.find("[3, 2]"), std::string::npos) << direct;
}

TEST(ElementwiseOps, AxisOutOfRangeFailsNamingShapes) {
  OpTest t("elementwise_mul");
  t.input("X", random_tensor({2, 3, 4}, DType::kF64, 1))
      .input("Y", random_tensor({3, 4}, DType::kF64, 2))
      .attr("axis", int64_t{2});
  std::string msg = error_of([&] { t.run(); });
  EXPECT_NE(msg.find("[2, 3, 4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("axis 2"), std::string::npos) << msg;
  // Y [3] at axis 2 of [2, 3, 4] meets 4: not broadcastable.
  std::string bad = error_of([] { kernels::broadcast_shape({2, 3, 4}, {3}, 2); });
  EXPECT_NE(bad.find("[2, 3, 4]"), std::string::npos) << bad;
  EXPECT_NE(bad.find("[3]"), std::string::npos) << bad;
}

TEST(ElementwiseOps, MixedDtypesAreAnError) {
  OpTest t("elementwise_add");
  t.input("X", random_tensor({3}, DType::kF32, 1)).input("Y", random_tensor({3}, DType::kF64, 2));
  std::string msg = error_of([&] { t.run(); });
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
}

TEST(ElementwiseOps, ShapeInferenceKeepsUnknownDims) {
  EXPECT_EQ(kernels::broadcast_shape({-1, 16}, {16}), (Shape{-1, 16}));
  EXPECT_EQ(kernels::broadcast_shape({-1, 3}, {4, 1}), (Shape{4, 3}));
  EXPECT_EQ(kernels::broadcast_shape({-1}, {1}), (Shape{-1}));
  EXPECT_EQ(kernels::broadcast_shape({-1, -1}, {-1, 1}), (Shape{-1, -1}));
  EXPECT_EQ(kernels::broadcast_shape({-1, 3, 4}, {3}, 1), (Shape{-1, 3, 4}));

  Program p;
  BlockBuilder b(&p);
  std::string x = b.data("x", DType::kF32, {-1, 16});
  std::string y = b.data("y", DType::kF32, {16});
  std::string out = b.apply("elementwise_add", {{"X", {x}}, {"Y", {y}}});
  const VarDesc* v = p.find_var(0, out);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, (Shape{-1, 16}));
  EXPECT_EQ(v->dtype, DType::kF32);
}

TEST(ElementwiseKernels, InPlaceOutputEvenWhenItGrows) {
  Tensor x = Tensor::from_vector<float>({2}, {1, 2});
  Tensor y = Tensor::from_vector<float>({2}, {10, 20});
  kernels::elementwise_binary(kernels::BinaryOp::kAdd, x, y, &x);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{11, 22}));

  Tensor small = Tensor::from_vector<float>({2}, {1, 2});
  Tensor big = Tensor::from_vector<float>({2, 2}, {10, 20, 30, 40});
  kernels::elementwise_binary(kernels::BinaryOp::kSub, small, big, &small);
  EXPECT_EQ(small.shape(), (Shape{2, 2}));
  EXPECT_EQ(small.to_vector<float>(), (std::vector<float>{-9, -18, -29, -38}));

  Tensor y2 = Tensor::from_vector<double>({1}, {3});
  Tensor x2 = Tensor::from_vector<double>({3}, {1, 2, 3});
  kernels::elementwise_binary(kernels::BinaryOp::kMul, x2, y2, &y2);
  EXPECT_EQ(y2.to_vector<double>(), (std::vector<double>{3, 6, 9}));
}

TEST(ElementwiseKernels, EmptyTensors) {
  Tensor x = Tensor::empty({0, 3}, DType::kF32), y = Tensor::from_vector<float>({3}, {1, 2, 3});
  Tensor out, dx, dy;
  kernels::elementwise_binary(kernels::BinaryOp::kMul, x, y, &out);
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
  kernels::elementwise_binary_grad(kernels::BinaryOp::kMul, x, y, out, out, &dx, &dy);
  EXPECT_EQ(dx.shape(), (Shape{0, 3}));
  EXPECT_EQ(dy.to_vector<float>(), (std::vector<float>{0, 0, 0}));
}

// Small shapes for finite differences (each input element costs two runs).
const ShapeCase kGradShapes[] = {
    {{3, 4}, {3, 4}, -1}, {{1, 16}, {16}, -1}, {{2, 3, 4}, {3, 1}, -1}, {{2, 3}, {}, -1},
    {{4, 1}, {1, 5}, -1}, {{5}, {2, 5}, -1},   {{2, 3, 4}, {3}, 1},     {{3}, {2, 3, 2}, 1}};

TEST(ElementwiseOps, GradientsMatchFiniteDifferencesWithBroadcast) {
  for (const BinaryCase& op : kOps) {
    const bool div = std::string(op.type) == "elementwise_div";
    for (const ShapeCase& c : kGradShapes) {
      SCOPED_TRACE(str_cat(op.type, " ", c.x, " ", c.y, " axis ", c.axis));
      OpTest t(op.type);
      t.input("X", operand(c.x, DType::kF64, 3, false))
          .input("Y", operand(c.y, DType::kF64, 4, div))
          .attr("axis", int64_t{c.axis});
      t.check_grad({"X", "Y"});
      t.check_grad({"Y"});
      t.check_grad({"X"});
    }
  }
}

TEST(ElementwiseOps, MaxMinGradientTiesGoToX) {
  for (const char* type : {"elementwise_max_grad", "elementwise_min_grad"}) {
    OpTest t(type);
    t.input("X", Tensor::from_vector<double>({3}, {1, 5, 2}))
        .input("Y", Tensor::from_vector<double>({3}, {1, 3, 4}))
        .input("Out@GRAD", Tensor::from_vector<double>({3}, {10, 20, 30}))
        .output("X@GRAD")
        .output("Y@GRAD");
    const bool max = std::string(type) == "elementwise_max_grad";
    t.check_output("X@GRAD",
                   Tensor::from_vector<double>({3}, {10, max ? 20. : 0., max ? 0. : 30.}));
    t.check_output("Y@GRAD", Tensor::from_vector<double>({3}, {0, max ? 0. : 20., max ? 30. : 0.}));
  }
}

// The f32 grad ops (check_grad runs in float64) and the threaded same-shape path,
// against float64 references: dX and dY summed over broadcast dims.
TEST(ElementwiseOps, GradOpsMatchReferenceInEachFloatDtype) {
  const std::map<std::string, std::function<std::pair<double, double>(double, double, double)>>
      partials = {
          {"elementwise_add", [](double, double, double d) { return std::make_pair(d, d); }},
          {"elementwise_sub", [](double, double, double d) { return std::make_pair(d, -d); }},
          {"elementwise_mul",
           [](double x, double y, double d) { return std::make_pair(d * y, d * x); }},
          {"elementwise_div",
           [](double x, double y, double d) { return std::make_pair(d / y, -d * x / (y * y)); }},
          {"elementwise_max",
           [](double x, double y, double d) {
             return std::make_pair(x >= y ? d : 0, x >= y ? 0 : d);
           }},
          {"elementwise_min",
           [](double x, double y, double d) {
             return std::make_pair(x <= y ? d : 0, x <= y ? 0 : d);
           }},
      };
  const ShapeCase cases[] = {{{300, 257}, {257}, -1}, {{300, 300}, {300, 300}, -1},
                             {{2, 3, 4}, {3, 1}, -1}, {{4, 1}, {1, 5}, -1},
                             {{5}, {2, 5}, -1},       {{300, 257}, {}, -1},
                             {{1, 16}, {16}, -1},     {{3}, {2, 3, 2}, 1}};
  for (const auto& [type, partial] : partials) {
    const bool div = type == "elementwise_div";
    for (DType dtype : kFloatTypes) {
      for (const ShapeCase& c : cases) {
        SCOPED_TRACE(str_cat(type, " ", dtype_name(dtype), " ", c.x, " ", c.y));
        Tensor x = to_f64(operand(c.x, dtype, 5, false)), y = to_f64(operand(c.y, dtype, 6, div));
        Tensor out = reference_binary(x, y, c.axis, [](double a, double b) { return a / b; });
        Tensor d = to_f64(random_tensor(out.shape(), dtype, 7));
        // Reference: scatter-add each output element's partials into x's and y's slots.
        Tensor gx = Tensor::zeros(x.shape(), DType::kF64),
               gy = Tensor::zeros(y.shape(), DType::kF64);
        Tensor xi = Tensor::empty(x.shape(), DType::kF64),
               yi = Tensor::empty(y.shape(), DType::kF64);
        for (int64_t i = 0; i < xi.numel(); ++i) xi.data<double>()[i] = static_cast<double>(i);
        for (int64_t i = 0; i < yi.numel(); ++i) yi.data<double>()[i] = static_cast<double>(i);
        Tensor xpos = reference_binary(xi, yi, c.axis, [](double a, double) { return a; });
        Tensor ypos = reference_binary(xi, yi, c.axis, [](double, double b) { return b; });
        Tensor xv = reference_binary(x, y, c.axis, [](double a, double) { return a; });
        Tensor yv = reference_binary(x, y, c.axis, [](double, double b) { return b; });
        for (int64_t i = 0; i < out.numel(); ++i) {
          auto [px, py] = partial(xv.data<double>()[i], yv.data<double>()[i], d.data<double>()[i]);
          gx.data<double>()[static_cast<int64_t>(xpos.data<double>()[i])] += px;
          gy.data<double>()[static_cast<int64_t>(ypos.data<double>()[i])] += py;
        }
        OpTest t(type + "_grad");
        t.input("X", from_f64(x, dtype))
            .input("Y", from_f64(y, dtype))
            .attr("axis", int64_t{c.axis});
        if (div) t.input("Out", from_f64(out, dtype));
        t.input("Out@GRAD", from_f64(d, dtype)).output("X@GRAD").output("Y@GRAD");
        const double atol = dtype == DType::kF32 ? 1e-3 : 1e-10;
        const double rtol = dtype == DType::kF32 ? 1e-4 : 1e-10;
        t.check_output("X@GRAD", from_f64(gx, dtype), atol, rtol);
        t.check_output("Y@GRAD", from_f64(gy, dtype), atol, rtol);
      }
    }
  }
}

TEST(ScaleOp, ForwardMatchesReferenceForEveryDtype) {
  struct Case {
    double scale, bias;
    bool after;
  };
  const Case cases[] = {{2, 1, true}, {2, 1, false}, {-3, 0.5, true}, {0.5, 0, true}};
  for (DType dtype : kAllTypes) {
    for (const Case& c : cases) {
      for (const Shape& s : {Shape{3, 4}, Shape{}, Shape{300, 300}}) {
        SCOPED_TRACE(str_cat(dtype_name(dtype), " scale ", c.scale, " bias ", c.bias, " after ",
                             c.after, " ", s));
        Tensor x = operand(s, dtype, 8, false);
        Tensor x64 = to_f64(x), want = Tensor::empty(s, DType::kF64);
        for (int64_t i = 0; i < x.numel(); ++i) {
          double v = x64.data<double>()[i];
          double r = c.after ? c.scale * v + c.bias : c.scale * (v + c.bias);
          want.data<double>()[i] = is_floating(dtype) ? r : std::trunc(r);
        }
        OpTest t("scale");
        t.input("X", x)
            .attr("scale", c.scale)
            .attr("bias", c.bias)
            .attr("bias_after_scale", c.after);
        const bool integer = !is_floating(dtype);
        t.check_output("Out", from_f64(want, dtype), integer ? 0 : 1e-6, integer ? 0 : 1e-6);
      }
    }
  }
}

TEST(ScaleOp, GradientIsScaledOutputGradient) {
  for (bool after : {true, false}) {
    OpTest t("scale");
    t.input("X", random_tensor({3, 5}, DType::kF64, 9))
        .attr("scale", -2.5)
        .attr("bias", 0.75)
        .attr("bias_after_scale", after);
    t.check_grad({"X"});
  }
}

}  // namespace
}  // namespace skiff
