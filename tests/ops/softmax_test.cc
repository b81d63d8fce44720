// softmax, log_softmax and softmax_with_cross_entropy: values against float64 references along the
// last, a middle and the first axis in f32 and f64, stability on large logits, hard
// labels (with ignore_index) and soft labels, gradients by finite differences, errors.
#include "skiff/kernels/cpu/softmax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

// log(sum(exp(x))) over the axis for every (o, j), in float64.
std::vector<double> log_sum_exp(const Tensor& x64, const kernels::AxisBlocks& l) {
  std::vector<double> out;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t j = 0; j < l.inner; ++j) {
      double mx = -INFINITY, s = 0;
      for (int64_t c = 0; c < l.n; ++c) mx = std::max(mx, x64.data<double>()[l.at(o, c, j)]);
      for (int64_t c = 0; c < l.n; ++c) s += std::exp(x64.data<double>()[l.at(o, c, j)] - mx);
      out.push_back(mx + std::log(s));
    }
  }
  return out;
}

Tensor reference_softmax(const Tensor& x, int axis) {
  const Tensor a = to_f64(x);
  const kernels::AxisBlocks l(x.shape(), axis);
  const std::vector<double> lse = log_sum_exp(a, l);
  Tensor out = Tensor::empty(x.shape(), DType::kF64);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.n; ++c) {
      for (int64_t j = 0; j < l.inner; ++j) {
        out.data<double>()[l.at(o, c, j)] =
            std::exp(a.data<double>()[l.at(o, c, j)] - lse[o * l.inner + j]);
      }
    }
  }
  return out;
}

struct AxisCase {
  Shape x;
  int64_t axis;
};

const AxisCase kAxisCases[] = {{{2, 5}, -1},   {{1, 16}, 1},     {{3, 4, 5}, 1},
                               {{3, 4, 5}, 0}, {{3, 4, 5}, -1},  {{7}, 0},
                               {{}, -1},       {{64, 1000}, -1}, {{8, 300, 40}, 1}};

TEST(SoftmaxOp, ForwardMatchesReference) {
  for (DType dtype : kFloatTypes) {
    for (const AxisCase& c : kAxisCases) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " axis ", c.axis));
      Tensor x = random_tensor(c.x, dtype, 1, -4, 4);
      const int axis = kernels::normalize_axis("softmax", c.axis, c.x.rank());
      OpTest t("softmax");
      t.input("X", x).attr("axis", c.axis);
      t.check_output("Out", from_f64(reference_softmax(x, axis), dtype), 1e-7, 1e-5);
    }
  }
}

// bfloat16 runs in float32 on the widened values: the reference of those values, rounded
// once (within one bfloat16 step of it); the gradient alike.
TEST(SoftmaxOp, Bfloat16ThroughFloat32) {
  for (const AxisCase& c : {AxisCase{{2, 5}, -1}, AxisCase{{3, 4, 5}, 1}}) {
    SCOPED_TRACE(str_cat(c.x, " axis ", c.axis));
    Tensor x = random_tensor(c.x, DType::kBF16, 1, -4, 4);
    const int axis = kernels::normalize_axis("softmax", c.axis, c.x.rank());
    OpTest t("softmax");
    t.input("X", x).attr("axis", c.axis);
    t.check_output("Out", from_f64(reference_softmax(x, axis), DType::kBF16), 1e-3, 8e-3);
    const Tensor y = from_f64(reference_softmax(x, axis), DType::kBF16);
    const Tensor dy = random_tensor(c.x, DType::kBF16, 2);
    Tensor dx, want;
    kernels::softmax_grad(y, dy, c.axis, &dx);
    kernels::softmax_grad(to_f64(y), to_f64(dy), c.axis, &want);
    std::string why;
    EXPECT_TRUE(testing::all_close(to_f64(dx), want, 1e-3, 8e-3, &why)) << why;
    EXPECT_EQ(dx.dtype(), DType::kBF16);
  }
}

TEST(SoftmaxOp, LargeLogitsStayFinite) {
  for (DType dtype : kFloatTypes) {
    Tensor x = from_f64(Tensor::from_vector<double>({2, 3}, {1000, 1001, 1002, -1000, -1001, -999}),
                        dtype);
    OpTest t("softmax");
    t.input("X", x);
    t.check_output("Out", from_f64(reference_softmax(x, 1), dtype), 1e-7, 1e-5);
  }
}

TEST(SoftmaxOp, GradientsMatchFiniteDifferences) {
  for (const AxisCase& c : {AxisCase{{2, 5}, -1}, AxisCase{{3, 4, 2}, 1}, AxisCase{{3, 2}, 0}}) {
    SCOPED_TRACE(str_cat(c.x, " axis ", c.axis));
    OpTest t("softmax");
    t.input("X", random_tensor(c.x, DType::kF64, 2)).attr("axis", c.axis);
    t.check_grad({"X"});
  }
}

TEST(SoftmaxOp, GradKernelInFloat32) {
  Tensor y = from_f64(reference_softmax(random_tensor({2, 3}, DType::kF64, 3), 1), DType::kF32);
  Tensor dy = random_tensor({2, 3}, DType::kF32, 4);
  Tensor dx;
  kernels::softmax_grad(y, dy, -1, &dx);
  for (int r = 0; r < 2; ++r) {
    double dot = 0;
    for (int c = 0; c < 3; ++c) dot += y.data<float>()[r * 3 + c] * dy.data<float>()[r * 3 + c];
    for (int c = 0; c < 3; ++c) {
      const int i = r * 3 + c;
      EXPECT_NEAR(dx.data<float>()[i], y.data<float>()[i] * (dy.data<float>()[i] - dot), 1e-6);
    }
  }
}

// ---- softmax_with_cross_entropy ----

OpTest cross_entropy_op(const Tensor& logits, const Tensor& label, bool soft, int64_t axis,
                        int64_t ignore_index = -100) {
  OpTest t("softmax_with_cross_entropy");
  t.input("Logits", logits).input("Label", label);
  t.output("Softmax").output("Loss");
  t.attr("soft_label", soft).attr("axis", axis).attr("ignore_index", ignore_index);
  return t;
}

// Loss of hard labels: lse - logit of the label, 0 where the label is ignore_index.
Tensor reference_hard_loss(const Tensor& logits, const Tensor& label, int axis, int64_t ignore) {
  const Tensor a = to_f64(logits);
  const kernels::AxisBlocks l(logits.shape(), axis);
  const std::vector<double> lse = log_sum_exp(a, l);
  Shape loss_shape = logits.shape();
  loss_shape[axis] = 1;
  Tensor out = Tensor::empty(loss_shape, DType::kF64);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t j = 0; j < l.inner; ++j) {
      const int64_t r = o * l.inner + j, y = label.data<int64_t>()[r];
      out.data<double>()[r] = y == ignore ? 0 : lse[r] - a.data<double>()[l.at(o, y, j)];
    }
  }
  return out;
}

Tensor reference_soft_loss(const Tensor& logits, const Tensor& label, int axis) {
  const Tensor a = to_f64(logits), p = to_f64(label);
  const kernels::AxisBlocks l(logits.shape(), axis);
  const std::vector<double> lse = log_sum_exp(a, l);
  Shape loss_shape = logits.shape();
  loss_shape[axis] = 1;
  Tensor out = Tensor::zeros(loss_shape, DType::kF64);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.n; ++c) {
      for (int64_t j = 0; j < l.inner; ++j) {
        out.data<double>()[o * l.inner + j] +=
            p.data<double>()[l.at(o, c, j)] *
            (lse[o * l.inner + j] - a.data<double>()[l.at(o, c, j)]);
      }
    }
  }
  return out;
}

Shape with_axis_one(Shape s, int axis) {
  s[axis] = 1;
  return s;
}

TEST(CrossEntropyOp, HardLabelsMatchReference) {
  for (DType dtype : kFloatTypes) {
    for (const AxisCase& c :
         {AxisCase{{4, 5}, -1}, AxisCase{{2, 4, 3}, 1}, AxisCase{{64, 10}, 1}}) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", c.x, " axis ", c.axis));
      const int axis = kernels::normalize_axis("test", c.axis, c.x.rank());
      Tensor logits = random_tensor(c.x, dtype, 5, -3, 3);
      Tensor label = random_tensor(with_axis_one(c.x, axis), DType::kI64, 6, 0, c.x[axis]);
      label.data<int64_t>()[1] = -100;  // one ignored row
      OpTest t = cross_entropy_op(logits, label, false, c.axis);
      t.check_output("Loss", from_f64(reference_hard_loss(logits, label, axis, -100), dtype), 1e-6,
                     1e-5);
      t.check_output("Softmax", from_f64(reference_softmax(logits, axis), dtype), 1e-7, 1e-5);
    }
  }
}

TEST(CrossEntropyOp, SoftLabelsMatchReference) {
  for (DType dtype : kFloatTypes) {
    Tensor logits = random_tensor({3, 6}, dtype, 7, -3, 3);
    Tensor label = from_f64(reference_softmax(random_tensor({3, 6}, DType::kF64, 8), 1), dtype);
    cross_entropy_op(logits, label, true, -1)
        .check_output("Loss", from_f64(reference_soft_loss(logits, label, 1), dtype), 1e-6, 1e-5);
  }
}

TEST(CrossEntropyOp, LargeLogitsGiveFiniteLoss) {
  Tensor logits = Tensor::from_vector<float>({2, 3}, {1000, 0, -1000, 50, 2000, 10});
  Tensor label = Tensor::from_vector<int64_t>({2, 1}, {2, 0});
  auto out = cross_entropy_op(logits, label, false, -1).run();
  EXPECT_NEAR(out["Loss"][0].data<float>()[0], 2000.0f, 1e-2);
  EXPECT_NEAR(out["Loss"][0].data<float>()[1], 1950.0f, 1e-2);
}

TEST(CrossEntropyOp, GradientsMatchFiniteDifferences) {
  {
    SCOPED_TRACE("hard labels, last axis, one ignored");
    Tensor label = Tensor::from_vector<int64_t>({3, 1}, {2, 7, 0});
    cross_entropy_op(random_tensor({3, 4}, DType::kF64, 9), label, false, -1, 7)
        .check_grad({"Logits"}, "Loss");
  }
  {
    SCOPED_TRACE("hard labels, middle axis");
    Tensor label = random_tensor({2, 1, 3}, DType::kI64, 10, 0, 4);
    cross_entropy_op(random_tensor({2, 4, 3}, DType::kF64, 11), label, false, 1)
        .check_grad({"Logits"}, "Loss");
  }
  {
    SCOPED_TRACE("soft labels that do not sum to 1");
    cross_entropy_op(random_tensor({2, 5}, DType::kF64, 12),
                     random_tensor({2, 5}, DType::kF64, 13, 0, 1), true, -1)
        .check_grad({"Logits"}, "Loss");
  }
}

TEST(CrossEntropyOp, GradKernelInFloat32) {
  Tensor prob = from_f64(reference_softmax(random_tensor({2, 3}, DType::kF64, 14), 1), DType::kF32);
  Tensor label = Tensor::from_vector<int64_t>({2, 1}, {1, -100});
  Tensor dloss = Tensor::from_vector<float>({2, 1}, {2, 5});
  Tensor dx;
  kernels::softmax_with_cross_entropy_grad(label, prob, dloss, false, -1, -100, &dx);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(dx.data<float>()[c], 2 * (prob.data<float>()[c] - (c == 1 ? 1 : 0)), 1e-6);
    EXPECT_EQ(dx.data<float>()[3 + c], 0.0f);
  }
}

TEST(CrossEntropyOp, Errors) {
  Tensor logits = random_tensor({2, 5}, DType::kF32, 15);
  EXPECT_THROW(
      cross_entropy_op(logits, Tensor::from_vector<int64_t>({2, 1}, {1, 5}), false, -1).run(),
      Error);
  expect_error(cross_entropy_op(logits, Tensor::from_vector<int64_t>({2, 1}, {1, 5}), false, -1),
               {"label value 5", "5 classes"});
  expect_error(cross_entropy_op(logits, Tensor::from_vector<int64_t>({2, 1}, {-3, 0}), false, -1),
               {"label value -3"});
  expect_error(
      cross_entropy_op(logits, Tensor::from_vector<int64_t>({2, 2}, {1, 1, 1, 1}), false, -1),
      {"[2, 2]", "[2, 5]"});
  expect_error(cross_entropy_op(logits, random_tensor({2, 4}, DType::kF32, 16), true, -1),
               {"[2, 4]", "[2, 5]"});
  expect_error(cross_entropy_op(logits, random_tensor({2, 1}, DType::kF32, 17), false, -1),
               {"int64"});
  OpTest bad_axis("softmax");
  bad_axis.input("X", logits).attr("axis", int64_t{2});
  expect_error(bad_axis, {"axis 2", "rank-2"});
}

// ---- log_softmax ----

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
