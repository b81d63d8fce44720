// unfold and fold: values against an element-by-element float64 reference (strides,
// 2- and 4-value paddings, dilations), hand-computed columns, fold as unfold's adjoint
// (<unfold(x), y> == <x, fold(y)>), declared shapes, gradients by finite differences, errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/shape_reference.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::declared_shape;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using Ints = std::vector<int64_t>;

struct Window {
  Ints kernel, strides, paddings, dilations;  // paddings: top, left, bottom, right
};

int64_t positions(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d) {
  return (in + p0 + p1 - d * (k - 1) - 1) / s + 1;
}

// cols[n][(c * kh + i) * kw + j][l] read cell by cell from x [N, C, H, W] (float64).
Tensor unfold_reference(const Tensor& x, const Window& w) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t kh = w.kernel[0], kw = w.kernel[1];
  const int64_t oh = positions(h, kh, w.strides[0], w.paddings[0], w.paddings[2], w.dilations[0]);
  const int64_t ow = positions(wd, kw, w.strides[1], w.paddings[1], w.paddings[3], w.dilations[1]);
  Tensor out = Tensor::zeros({n, c * kh * kw, oh * ow}, DType::kF64);
  double* y = out.data<double>();
  const double* xp = x.data<double>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          for (int64_t l = 0; l < oh * ow; ++l) {
            const int64_t r = l / ow * w.strides[0] - w.paddings[0] + i * w.dilations[0];
            const int64_t s = l % ow * w.strides[1] - w.paddings[1] + j * w.dilations[1];
            if (r < 0 || r >= h || s < 0 || s >= wd) continue;
            y[((b * c + ci) * kh * kw + i * kw + j) * oh * ow + l] =
                xp[((b * c + ci) * h + r) * wd + s];
          }
  return out;
}

OpTest window_op(const std::string& type, const Tensor& x, const Window& w) {
  OpTest t(type);
  t.input("X", x).output("Out");
  t.attr("kernel_sizes", w.kernel).attr("strides", w.strides);
  t.attr("paddings", w.paddings).attr("dilations", w.dilations);
  return t;
}

std::vector<std::pair<Shape, Window>> cases() {
  return {{{2, 3, 4, 5}, {{2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}}},
          {{1, 2, 5, 6}, {{3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}}},
          {{2, 1, 6, 6}, {{2, 3}, {2, 2}, {1, 1, 1, 1}, {2, 1}}},
          {{1, 2, 3, 3}, {{1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}}}};
}

TEST(UnfoldOp, MatchesReference) {
  for (const auto& [shape, w] : cases()) {
    SCOPED_TRACE(str_cat("x", shape, " k", Shape(w.kernel), " p", Shape(w.paddings)));
    const Tensor x = random_tensor(shape, DType::kF64, 3);
    const Tensor want = unfold_reference(x, w);
    window_op("unfold", x, w).check_output("Out", want, 0, 0);
    window_op("unfold", from_f64(x, DType::kF32), w)
        .check_output("Out", from_f64(want, DType::kF32), 0, 0);
  }
}

TEST(UnfoldOp, HandComputedColumnsAndTwoValuePadding) {
  const Tensor x = Tensor::from_vector<double>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  window_op("unfold", x, {{2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}})
      .check_output("Out", Tensor::from_vector<double>(
                               {1, 4, 4}, {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
  // (1, 0) pads one row above and below: 3 positions of a 3x3 window down, 1 across.
  const Tensor cols = window_op("unfold", x, {{3, 3}, {1, 1}, {1, 0}, {1, 1}}).run()["Out"][0];
  EXPECT_EQ(cols.shape(), Shape({1, 9, 3}));
  EXPECT_EQ(cols.data<double>()[0], 0);  // the top-left cell of the first window is padding
  EXPECT_EQ(cols.data<double>()[1], 1);
}

TEST(FoldOp, IsTheAdjointOfUnfold) {
  for (const auto& [shape, w] : cases()) {
    SCOPED_TRACE(str_cat("x", shape, " k", Shape(w.kernel), " p", Shape(w.paddings)));
    const Tensor x = random_tensor(shape, DType::kF64, 5);
    const Tensor ux = unfold_reference(x, w);
    const Tensor y = random_tensor(ux.shape(), DType::kF64, 9);
    OpTest fold = window_op("fold", y, w);
    fold.attr("output_sizes", Ints{shape[2], shape[3]});
    const Tensor fy = fold.run()["Out"][0];
    ASSERT_EQ(fy.shape(), shape);
    double lhs = 0, rhs = 0;
    for (int64_t i = 0; i < ux.numel(); ++i) lhs += ux.data<double>()[i] * y.data<double>()[i];
    for (int64_t i = 0; i < x.numel(); ++i) rhs += x.data<double>()[i] * fy.data<double>()[i];
    EXPECT_NEAR(lhs, rhs, 1e-10);
  }
}

TEST(FoldOp, SumsOverlappingWindows) {
  // A 2x2 window at stride 1 over 3x3 covers the centre 4 times, edges twice, corners once.
  OpTest fold =
      window_op("fold", Tensor::from_vector<double>({1, 4, 4}, std::vector<double>(16, 1)),
                {{2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}});
  fold.attr("output_sizes", Ints{3, 3});
  fold.check_output("Out", Tensor::from_vector<double>({1, 1, 3, 3}, {1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(UnfoldOp, GradientsMatchFiniteDifferences) {
  for (const auto& [shape, w] : cases()) {
    SCOPED_TRACE(str_cat("x", shape, " k", Shape(w.kernel), " p", Shape(w.paddings)));
    window_op("unfold", random_tensor(shape, DType::kF64, 2), w).check_grad({"X"});
    const Shape cols = unfold_reference(random_tensor(shape, DType::kF64, 2), w).shape();
    OpTest fold = window_op("fold", random_tensor(cols, DType::kF64, 4), w);
    fold.attr("output_sizes", Ints{shape[2], shape[3]});
    fold.check_grad({"X"});
  }
}

TEST(UnfoldOp, DeclaredShapes) {
  const AttrList attrs{{"kernel_sizes", Ints{2, 3}}, {"strides", Ints{2, 1}}};
  EXPECT_EQ(declared_shape("unfold", {{"X", DType::kF32, {-1, 3, 6, 7}}}, attrs),
            Shape({-1, 18, 15}));
  EXPECT_EQ(declared_shape("unfold", {{"X", DType::kF32, {2, 3, -1, 7}}}, attrs),
            Shape({2, 18, -1}));
  AttrList fold_attrs = attrs;
  fold_attrs.push_back({"output_sizes", Ints{6, 7}});
  EXPECT_EQ(declared_shape("fold", {{"X", DType::kF64, {-1, 18, 15}}}, fold_attrs),
            Shape({-1, 3, 6, 7}));
}

TEST(UnfoldOp, Errors) {
  const Tensor x = random_tensor({1, 2, 3, 3}, DType::kF32, 1);
  expect_error(window_op("unfold", x, {{4, 2}, {1, 1}, {0, 0}, {1, 1}}),
               {"padded height 3", "kernel height 4"});
  expect_error(window_op("unfold", x, {{2}, {1, 1}, {0, 0}, {1, 1}}),
               {"unfold", "kernel_sizes must hold 2 values >= 1"});
  expect_error(window_op("unfold", x, {{2, 2}, {0, 1}, {0, 0}, {1, 1}}),
               {"strides must hold 2 values >= 1"});
  expect_error(window_op("unfold", x, {{2, 2}, {1, 1}, {0, 0, 1}, {1, 1}}),
               {"paddings must hold 2 or 4 values"});
  expect_error(window_op("unfold", random_tensor({2, 3, 3}, DType::kF32, 1),
                         {{2, 2}, {1, 1}, {0, 0}, {1, 1}}),
               {"X must be 4-D"});
  OpTest fold =
      window_op("fold", random_tensor({1, 8, 5}, DType::kF32, 1), {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  fold.attr("output_sizes", Ints{3, 3});
  expect_error(fold, {"holds 5 windows", "2 x 2 = 4"});
  OpTest odd =
      window_op("fold", random_tensor({1, 6, 4}, DType::kF32, 1), {{2, 2}, {1, 1}, {0, 0}, {1, 1}});
  odd.attr("output_sizes", Ints{3, 3});
  expect_error(odd, {"not divisible by kernel_sizes' product 4"});
}

}  // namespace
}  // namespace skiff
