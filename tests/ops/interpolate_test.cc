// The interp_v2 ops: hand-computed values, every method and alignment against a float64
// reference written as dense per-axis weight matrices (hat and Keys kernels over the
// source coordinate), sizes from attributes, scale, OutSize and Scale inputs, declared
// shapes, gradients by finite differences, and errors.
#include <gtest/gtest.h>

#include <cmath>
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
using testing::to_f64;
using Matrix = std::vector<std::vector<double>>;  // [out][in]

struct InterpCase {
  std::string type;
  Shape x;
  std::vector<int64_t> out;  // spatial output sizes
  bool align_corners = false;
  int align_mode = 0;
  double scale = 0;  // > 0: sizes come from the scale instead of `out`
};

std::string method_of(const InterpCase& c) { return c.type.substr(0, c.type.find('_')); }

// The source coordinate of output cell k: Paddle's rules with the step kept in float32.
double source(const InterpCase& c, int64_t in, int64_t out, int64_t k, bool half_pixel) {
  float step = 0;
  if (out > 1) {
    step = c.align_corners ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
           : c.scale > 0   ? static_cast<float>(1.0 / static_cast<float>(c.scale))
                           : static_cast<float>(in) / static_cast<float>(out);
  }
  return half_pixel ? static_cast<double>(step) * (k + 0.5) - 0.5 : step * static_cast<float>(k);
}

double keys(double d) {
  const double a = -0.75, x = std::fabs(d);
  if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
  if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
  return 0;
}

// weights[k][i]: how much input cell i contributes to output cell k along one axis.
Matrix axis_weights(const InterpCase& c, int64_t in, int64_t out) {
  Matrix w(out, std::vector<double>(in, 0.0));
  const std::string m = method_of(c);
  for (int64_t k = 0; k < out; ++k) {
    if (m == "nearest") {
      const double s = source(c, in, out, k, false);
      w[k][std::min<int64_t>(in - 1, c.align_corners ? std::floor(s + 0.5) : std::floor(s))] = 1;
    } else if (m == "bicubic") {
      const double s = source(c, in, out, k, !c.align_corners);
      const double base = std::floor(s);
      for (int t = -1; t <= 2; ++t) {
        const int64_t i = std::min<int64_t>(std::max<int64_t>(base + t, 0), in - 1);
        w[k][i] += keys(s - (base + t));
      }
    } else {
      const bool half_pixel = !c.align_corners && c.align_mode == 0;
      const double s = std::min(std::max(source(c, in, out, k, half_pixel), 0.0), in - 1.0);
      for (int64_t i = 0; i < in; ++i) w[k][i] = std::max(0.0, 1 - std::fabs(s - i));
    }
  }
  return w;
}

// out = the resize of x (float64) with the per-axis matrices, summing over all input cells.
Tensor reference(const InterpCase& c, const Tensor& x) {
  const int r = x.rank() - 2;
  Shape out_shape = x.shape();
  std::vector<Matrix> w;
  for (int i = 0; i < r; ++i) {
    const int64_t in = x.dim(2 + i);
    out_shape[2 + i] =
        c.scale > 0 ? static_cast<int64_t>(static_cast<float>(in) * static_cast<float>(c.scale))
                    : c.out[i];
    w.push_back(axis_weights(c, in, out_shape[2 + i]));
  }
  while (w.size() < 3) w.insert(w.begin(), Matrix{{1.0}});
  const int64_t in_d = w[0][0].size(), in_h = w[1][0].size(), in_w = w[2][0].size();
  const int64_t od_n = w[0].size(), oh_n = w[1].size(), ow_n = w[2].size();
  Tensor out = Tensor::zeros(out_shape, DType::kF64);
  const double* xp = x.data<double>();
  double* yp = out.data<double>();
  for (int64_t p = 0; p < x.dim(0) * x.dim(1); ++p) {
    for (int64_t od = 0; od < od_n; ++od)
      for (int64_t oh = 0; oh < oh_n; ++oh)
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          double sum = 0;
          for (int64_t id = 0; id < in_d; ++id)
            for (int64_t ih = 0; ih < in_h; ++ih)
              for (int64_t iw = 0; iw < in_w; ++iw)
                sum += w[0][od][id] * w[1][oh][ih] * w[2][ow][iw] *
                       xp[((p * in_d + id) * in_h + ih) * in_w + iw];
          yp[((p * od_n + od) * oh_n + oh) * ow_n + ow] = sum;
        }
  }
  return out;
}

OpTest interp_op(const InterpCase& c, const Tensor& x) {
  OpTest t(c.type);
  t.input("X", x).output("Out");
  std::vector<int64_t> dhw{-1, -1, -1};
  if (c.scale > 0) {
    t.attr("scale", std::vector<double>{c.scale});
  } else {
    std::copy(c.out.begin(), c.out.end(), dhw.end() - c.out.size());
  }
  t.attr("out_d", dhw[0]).attr("out_h", dhw[1]).attr("out_w", dhw[2]);
  t.attr("align_corners", c.align_corners).attr("align_mode", int64_t{c.align_mode});
  return t;
}

std::vector<InterpCase> cases() {
  std::vector<InterpCase> all;
  for (bool ac : {false, true}) {
    for (int mode : {0, 1}) {
      all.push_back({"bilinear_interp_v2", {2, 3, 4, 5}, {7, 3}, ac, mode});
      all.push_back({"bilinear_interp_v2", {1, 2, 5, 3}, {}, ac, mode, 1.7});
      all.push_back({"linear_interp_v2", {2, 2, 5}, {8}, ac, mode});
      all.push_back({"trilinear_interp_v2", {1, 2, 3, 4, 2}, {5, 2, 3}, ac, mode});
    }
    all.push_back({"bicubic_interp_v2", {1, 2, 4, 5}, {7, 3}, ac});
    all.push_back({"bicubic_interp_v2", {2, 1, 3, 3}, {}, ac, 0, 2.5});
  }
  all.push_back({"bilinear_interp_v2", {1, 1, 4, 4}, {1, 1}});  // one output cell: source 0
  all.push_back({"nearest_interp_v2", {2, 3, 4, 5}, {7, 3}});
  all.push_back({"nearest_interp_v2", {2, 3, 6, 5}, {4, 11}, true});
  all.push_back({"nearest_interp_v2", {2, 3, 5}, {}, false, 0, 2.0});
  all.push_back({"nearest_interp_v2", {1, 2, 3, 4, 2}, {5, 2, 3}});
  return all;
}

std::string describe(const InterpCase& c) {
  return str_cat(c.type, " x", c.x, " out", Shape(c.out), " scale ", c.scale,
                 c.align_corners ? " align_corners" : "", " align_mode ", c.align_mode);
}

TEST(InterpolateOp, MatchesReference) {
  for (const InterpCase& c : cases()) {
    SCOPED_TRACE(describe(c));
    const Tensor x = random_tensor(c.x, DType::kF64, 7);
    const Tensor want = reference(c, x);
    interp_op(c, x).check_output("Out", want, 1e-12, 1e-10);
    interp_op(c, from_f64(x, DType::kF32)).check_output("Out", from_f64(want, DType::kF32), 1e-5);
  }
}

TEST(InterpolateOp, HandComputedValues) {
  const Tensor x = Tensor::from_vector<double>({1, 1, 2, 2}, {0, 1, 2, 3});
  interp_op({"bilinear_interp_v2", {}, {3, 3}, true}, x)
      .check_output("Out",
                    Tensor::from_vector<double>({1, 1, 3, 3}, {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3}));
  interp_op({"nearest_interp_v2", {}, {4, 4}}, x)
      .check_output("Out", Tensor::from_vector<double>(
                               {1, 1, 4, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}));
  const Tensor line = Tensor::from_vector<double>({1, 1, 3}, {0, 1, 2});
  // Half-pixel sources -0.25 (clamped), 0.25, 0.75, ..., 2.25 (past the last cell).
  interp_op({"linear_interp_v2", {}, {6}}, line)
      .check_output("Out", Tensor::from_vector<double>({1, 1, 6}, {0, 0.25, 0.75, 1.25, 1.75, 2}));
  // Asymmetric sources 0, 0.5, ..., 2.5.
  interp_op({"linear_interp_v2", {}, {6}, false, 1}, line)
      .check_output("Out", Tensor::from_vector<double>({1, 1, 6}, {0, 0.5, 1, 1.5, 2, 2}));
  // A constant plane stays constant under bicubic weights (they sum to 1).
  interp_op({"bicubic_interp_v2", {}, {5, 3}},
            Tensor::from_vector<double>({1, 1, 2, 2}, {4, 4, 4, 4}))
      .check_output("Out", Tensor::from_vector<double>({1, 1, 5, 3}, std::vector<double>(15, 4)));
}

TEST(InterpolateOp, OutSizeAndScaleInputs) {
  const InterpCase c{"bilinear_interp_v2", {1, 2, 3, 4}, {5, 6}};
  const Tensor x = random_tensor(c.x, DType::kF64, 3);
  OpTest sized = interp_op({"bilinear_interp_v2", {}, {2, 2}}, x);
  sized.input("OutSize", Tensor::from_vector<int32_t>({2}, {5, 6}));
  sized.check_output("Out", reference(c, x), 1e-12, 1e-12);

  const InterpCase scaled{"bilinear_interp_v2", {1, 2, 3, 4}, {}, false, 0, 1.5};
  OpTest by_input = interp_op({"bilinear_interp_v2", {}, {2, 2}}, x);
  by_input.attr("out_h", int64_t{-1}).attr("out_w", int64_t{-1});
  by_input.input("Scale", Tensor::from_vector<float>({1}, {1.5f}));
  by_input.check_output("Out", reference(scaled, x), 1e-12, 1e-12);
}

TEST(InterpolateOp, DeclaredShapes) {
  const AttrList sized{{"out_h", int64_t{6}}, {"out_w", int64_t{7}}};
  EXPECT_EQ(declared_shape("bilinear_interp_v2", {{"X", DType::kF32, {-1, 3, 4, 4}}}, sized),
            Shape({-1, 3, 6, 7}));
  EXPECT_EQ(declared_shape("nearest_interp_v2", {{"X", DType::kF64, {2, 3, -1, 4}}},
                           {{"scale", std::vector<double>{2.0}}}),
            Shape({2, 3, -1, 8}));
  EXPECT_EQ(
      declared_shape("bilinear_interp_v2",
                     {{"X", DType::kF32, {2, 3, 4, 4}}, {"OutSize", DType::kI32, {2}}}, sized),
      Shape({2, 3, -1, -1}));
  EXPECT_EQ(
      declared_shape("linear_interp_v2", {{"X", DType::kF32, {2, 3, 4}}}, {{"out_w", int64_t{9}}}),
      Shape({2, 3, 9}));
}

TEST(InterpolateOp, GradientsMatchFiniteDifferences) {
  for (const InterpCase& c : cases()) {
    SCOPED_TRACE(describe(c));
    interp_op(c, random_tensor(c.x, DType::kF64, 11)).check_grad({"X"});
  }
  OpTest sized =
      interp_op({"bicubic_interp_v2", {}, {2, 2}}, random_tensor({1, 2, 3, 3}, DType::kF64, 5));
  sized.input("OutSize", Tensor::from_vector<int64_t>({2}, {4, 5}));
  sized.check_grad({"X"});
}

TEST(InterpolateOp, Errors) {
  const Tensor x4 = random_tensor({1, 1, 2, 2}, DType::kF32, 1);
  expect_error(interp_op({"bilinear_interp_v2", {}, {3}}, random_tensor({1, 1, 2}, DType::kF32, 1)),
               {"bilinear resizes 2 spatial dims", "1"});
  OpTest bad_mode = interp_op({"bilinear_interp_v2", {}, {3, 3}}, x4);
  bad_mode.attr("align_mode", int64_t{2});
  expect_error(bad_mode, {"align_mode must be 0 or 1", "2"});
  expect_error(interp_op({"bilinear_interp_v2", {}, {-1, 3}}, x4),
               {"neither a positive output size nor a positive scale"});
  OpTest bad_layout = interp_op({"bilinear_interp_v2", {}, {3, 3}}, x4);
  bad_layout.attr("data_layout", std::string("NHWC"));
  expect_error(bad_layout, {"data_layout must be channel-first", "NHWC"});
  OpTest bad_size = interp_op({"bilinear_interp_v2", {}, {3, 3}}, x4);
  bad_size.input("OutSize", Tensor::from_vector<int32_t>({3}, {1, 2, 3}));
  expect_error(bad_size, {"OutSize must hold 2 sizes", "3"});
  expect_error(interp_op({"nearest_interp_v2", {}, {}, false, 0, 0.2}, x4), {"scale 0.2", "empty"});
}

}  // namespace
}  // namespace skiff
