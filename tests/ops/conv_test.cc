// conv2d and conv2d_transpose: values against float64 loops written here (strides,
// asymmetric padding, dilation, groups, depthwise, bias, fused relu, W3's layers) in f32
// and f64; gradients by finite differences; the f32 grad kernels (oneDNN) against the f64
// ones; shape inference with unknown dims; errors.
#include "skiff/kernels/cpu/conv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skiff/autodiff/backward.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;
using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;
using Ints = std::vector<int64_t>;

constexpr DType kFloatTypes[] = {DType::kF32, DType::kF64};

struct Case {
  Shape x, w;
  Ints strides{1, 1}, paddings{0, 0}, dilations{1, 1};
  int64_t groups = 1;
  Ints output_padding{};  // conv2d_transpose only
};

std::string describe(const Case& c) {
  return str_cat("x ", c.x, " w ", c.w, " strides ", Shape(c.strides), " paddings ",
                 Shape(c.paddings), " dilations ", Shape(c.dilations), " groups ", c.groups,
                 " output_padding ", Shape(c.output_padding));
}

// (top, bottom, left, right) from Paddle's 2 or 4 paddings.
Ints four_pads(const Ints& p) { return p.size() == 2 ? Ints{p[0], p[0], p[1], p[1]} : p; }

int64_t at4(const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  const Shape& s = t.shape();
  return ((a * s[1] + b) * s[2] + c) * s[3] + d;
}

// conv2d in float64 straight from the definition.
Tensor reference_conv2d(const Tensor& input, const Tensor& filter, const Tensor* bias,
                        const Case& c, bool relu) {
  const Tensor x = to_f64(input), w = to_f64(filter);
  const Ints pad = four_pads(c.paddings);
  const int64_t n = x.dim(0), ch = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t m = w.dim(0), cg = w.dim(1), kh = w.dim(2), kw = w.dim(3);
  const int64_t oh = (h + pad[0] + pad[1] - c.dilations[0] * (kh - 1) - 1) / c.strides[0] + 1;
  const int64_t ow = (wd + pad[2] + pad[3] - c.dilations[1] * (kw - 1) - 1) / c.strides[1] + 1;
  const int64_t mg = m / c.groups;
  EXPECT_EQ(cg * c.groups, ch);
  const Tensor b64 = bias ? to_f64(*bias) : Tensor::zeros({m}, DType::kF64);
  Tensor out = Tensor::zeros({n, m, oh, ow}, DType::kF64);
  const double* xp = x.data<double>();
  const double* wp = w.data<double>();
  double* op = out.data<double>();
  for (int64_t idx = 0; idx < out.numel(); ++idx) {
    const int64_t z = idx % ow, y = idx / ow % oh, mo = idx / (ow * oh) % m;
    const int64_t b = idx / (ow * oh * m);
    double s = b64.data<double>()[mo];
    for (int64_t k = 0; k < cg * kh * kw; ++k) {
      const int64_t j = k % kw, i = k / kw % kh, ci = k / (kw * kh);
      const int64_t iy = y * c.strides[0] - pad[0] + i * c.dilations[0];
      const int64_t ix = z * c.strides[1] - pad[2] + j * c.dilations[1];
      if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
      s += xp[at4(x, b, (mo / mg) * cg + ci, iy, ix)] * wp[at4(w, mo, ci, i, j)];
    }
    op[idx] = relu && s < 0 ? 0.0 : s;
  }
  return out;
}

// conv2d_transpose in float64: every input pixel scatters its filter into the output.
Tensor reference_conv2d_transpose(const Tensor& input, const Tensor& filter, const Case& c) {
  const Tensor x = to_f64(input), w = to_f64(filter);
  const Ints pad = four_pads(c.paddings);
  const Ints extra = c.output_padding.empty() ? Ints{0, 0} : c.output_padding;
  const int64_t n = x.dim(0), ch = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t mg = w.dim(1), kh = w.dim(2), kw = w.dim(3), cg = ch / c.groups;
  const int64_t oh =
      (h - 1) * c.strides[0] - pad[0] - pad[1] + c.dilations[0] * (kh - 1) + 1 + extra[0];
  const int64_t ow =
      (wd - 1) * c.strides[1] - pad[2] - pad[3] + c.dilations[1] * (kw - 1) + 1 + extra[1];
  Tensor out = Tensor::zeros({n, mg * c.groups, oh, ow}, DType::kF64);
  const double* xp = x.data<double>();
  const double* wp = w.data<double>();
  double* op = out.data<double>();
  for (int64_t idx = 0; idx < x.numel(); ++idx) {
    const int64_t z = idx % wd, y = idx / wd % h, ci = idx / (wd * h) % ch;
    const int64_t b = idx / (wd * h * ch);
    for (int64_t k = 0; k < mg * kh * kw; ++k) {
      const int64_t j = k % kw, i = k / kw % kh, mo = k / (kw * kh);
      const int64_t oy = y * c.strides[0] - pad[0] + i * c.dilations[0];
      const int64_t ox = z * c.strides[1] - pad[2] + j * c.dilations[1];
      if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
      op[at4(out, b, (ci / cg) * mg + mo, oy, ox)] += xp[idx] * wp[at4(w, ci, mo, i, j)];
    }
  }
  return out;
}

OpTest conv_op(const std::string& type, const Tensor& x, const Tensor& w, const Case& c) {
  OpTest t(type);
  t.input("Input", x).input("Filter", w);
  const bool grad_op = type.size() > 5 && type.compare(type.size() - 5, 5, "_grad") == 0;
  if (!grad_op) t.output("Output");
  t.attr("strides", c.strides).attr("paddings", c.paddings).attr("dilations", c.dilations);
  t.attr("groups", c.groups);
  if (type.rfind("conv2d_transpose", 0) == 0) t.attr("output_padding", c.output_padding);
  return t;
}

kernels::ConvParams params_of(const Case& c) {
  return kernels::conv_params(c.strides, c.paddings, c.dilations, c.groups, c.output_padding);
}

void expect_close(const Tensor& got, const Tensor& want, double atol, double rtol) {
  std::string why;
  EXPECT_TRUE(testing::all_close(got, want, atol, rtol, &why)) << why;
}

const std::vector<Case>& conv_cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 5, 5}, {4, 3, 3, 3}, {1, 1}, {1, 1}},                // 3x3, same padding
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {2, 2}, {1, 0, 2, 1}},          // stride 2, asymmetric pad
      {{1, 2, 9, 8}, {3, 2, 3, 2}, {1, 2}, {2, 1}, {2, 3}},        // dilations, wide stride
      {{2, 4, 6, 6}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2},     // two groups
      {{1, 3, 7, 7}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 3},     // depthwise
      {{2, 3, 6, 5}, {6, 1, 3, 3}, {2, 1}, {0, 1}, {1, 1}, 3},     // depthwise, multiplier 2
      {{2, 5, 4, 4}, {7, 5, 1, 1}},                                // 1x1
      {{1, 2, 3, 3}, {2, 2, 5, 5}, {1, 1}, {1, 1}},                // kernel larger than input
      {{3, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}},             // W3 layer 1
      {{2, 32, 14, 14}, {64, 32, 3, 3}, {1, 1}, {1, 1}},           // W3 layer 2
      {{2, 32, 9, 9}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 2},  // blocked layouts, groups
      {{2, 32, 8, 8}, {32, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 32},  // blocked depthwise
      {{2, 3, 8, 8}, {24, 3, 3, 3}, {1, 1}, {1, 1}},               // NCHW in, blocked out
      {{0, 3, 5, 5}, {4, 3, 3, 3}, {1, 1}, {1, 1}},                // empty batch
  };
  return cases;
}

TEST(Conv2dOp, ForwardMatchesReference) {
  for (DType dtype : kFloatTypes) {
    for (const Case& c : conv_cases()) {
      for (int variant = 0; variant < 3; ++variant) {  // no bias, bias, bias + fused relu
        SCOPED_TRACE(str_cat(dtype_name(dtype), " ", describe(c), " variant ", variant));
        Tensor x = random_tensor(c.x, dtype, 1), w = random_tensor(c.w, dtype, 2);
        Tensor bias = random_tensor({c.w[0]}, dtype, 3);
        OpTest t = conv_op("conv2d", x, w, c);
        if (variant > 0) t.input("Bias", bias);
        if (variant == 2) t.attr("fuse_relu", true);
        Tensor want =
            from_f64(reference_conv2d(x, w, variant > 0 ? &bias : nullptr, c, variant == 2), dtype);
        if (dtype == DType::kF32) {
          t.check_output("Output", want, 1e-5, 1e-4);
        } else {
          t.check_output("Output", want, 1e-12, 1e-12);
        }
      }
    }
  }
}

TEST(Conv2dOp, GradientsMatchFiniteDifferences) {
  const Case cases[] = {
      {{2, 2, 4, 4}, {3, 2, 3, 3}, {1, 1}, {1, 1}},
      {{1, 2, 5, 6}, {2, 2, 2, 3}, {2, 1}, {1, 0, 0, 1}},
      {{1, 2, 6, 6}, {2, 2, 2, 2}, {1, 2}, {1, 1}, {2, 2}},
      {{2, 4, 4, 4}, {4, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2},
      {{1, 3, 5, 5}, {3, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 3},  // depthwise
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    OpTest t = conv_op("conv2d", random_tensor(c.x, DType::kF64, 4),
                       random_tensor(c.w, DType::kF64, 5), c);
    t.input("Bias", random_tensor({c.w[0]}, DType::kF64, 6));
    t.check_grad({"Input", "Filter", "Bias"}, "Output");
  }
  // A Bias shaped [1, M, 1, 1] (as the fusion pass may pass it) gets a gradient of its shape.
  const Case& c0 = cases[0];
  OpTest broadcast_bias = conv_op("conv2d", random_tensor(c0.x, DType::kF64, 4),
                                  random_tensor(c0.w, DType::kF64, 5), c0);
  broadcast_bias.input("Bias", random_tensor({1, c0.w[0], 1, 1}, DType::kF64, 6));
  broadcast_bias.check_grad({"Input", "Filter", "Bias"}, "Output");
  // One input at a time: the grad op skips the gradients nobody asked for.
  const Case& c = cases[0];
  OpTest t =
      conv_op("conv2d", random_tensor(c.x, DType::kF64, 7), random_tensor(c.w, DType::kF64, 8), c);
  t.check_grad({"Filter"}, "Output");
  t.check_grad({"Input"}, "Output");
}

// conv2d_grad in float32 (oneDNN backward data / weights) against float64 (loops, checked
// by finite differences above), through the harness.
TEST(Conv2dOp, Float32GradAgreesWithFloat64) {
  for (const Case& c : conv_cases()) {
    SCOPED_TRACE(describe(c));
    Tensor x = random_tensor(c.x, DType::kF64, 9), w = random_tensor(c.w, DType::kF64, 10);
    Tensor out = reference_conv2d(x, w, nullptr, c, false);
    Tensor dout = random_tensor(out.shape(), DType::kF64, 11);
    Tensor dx, dw, db;
    kernels::conv2d_grad(x, w, dout, params_of(c), &dx, &dw, &db);
    OpTest t = conv_op("conv2d_grad", from_f64(x, DType::kF32), from_f64(w, DType::kF32), c);
    t.input("Output@GRAD", from_f64(dout, DType::kF32));
    t.output("Input@GRAD").output("Filter@GRAD").output("Bias@GRAD");
    t.check_output("Input@GRAD", from_f64(dx, DType::kF32), 1e-4, 1e-4);
    t.check_output("Filter@GRAD", from_f64(dw, DType::kF32), 1e-3, 1e-4);
    t.check_output("Bias@GRAD", from_f64(db, DType::kF32), 1e-3, 1e-4);
  }
}

TEST(Conv2dOp, OutputMayBeAnInput) {
  const Case c{{1, 2, 5, 5}, {2, 2, 3, 3}, {1, 1}, {1, 1}};
  for (DType dtype : kFloatTypes) {
    Tensor x = random_tensor(c.x, dtype, 12), w = random_tensor(c.w, dtype, 13);
    Tensor want = from_f64(reference_conv2d(x, w, nullptr, c, false), dtype);
    kernels::conv2d(x, w, nullptr, params_of(c), false, &x);
    expect_close(x, want, 1e-5, 1e-4);
  }
}

TEST(Conv2dOp, ShapeInferenceWithUnknownDims) {
  const auto p = kernels::conv_params({2, 2}, {1, 1}, {1, 1}, 1);
  EXPECT_EQ(kernels::conv2d_shape({-1, 3, 28, 28}, {8, 3, 3, 3}, p), Shape({-1, 8, 14, 14}));
  EXPECT_EQ(kernels::conv2d_shape({4, -1, -1, 9}, {8, 3, 3, 3}, p), Shape({4, 8, -1, 5}));
  EXPECT_EQ(kernels::conv2d_shape({4, 3, 9, 9}, {-1, 3, -1, 3}, p), Shape({4, -1, -1, 5}));
  // Through program building: Output declared from Input's partly unknown shape.
  Program prog;
  BlockBuilder b(&prog);
  const std::string x = b.data("x", DType::kF32, {-1, 1, 28, 28});
  const std::string w = b.persistable("w", DType::kF32, {32, 1, 3, 3});
  b.op("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {"y"}}},
       {{"paddings", Ints{1, 1}}});
  EXPECT_EQ(prog.global_block().find_local_var("y")->shape, Shape({-1, 32, 28, 28}));
}

TEST(Conv2dOp, ErrorsNameTheShapes) {
  auto op = [](Shape x, Shape w, Case c = {}) {
    c.x = x;
    c.w = w;
    return conv_op("conv2d", random_tensor(x, DType::kF32, 1), random_tensor(w, DType::kF32, 2), c);
  };
  expect_error(op({1, 3, 5, 5}, {4, 2, 3, 3}), {"[1, 3, 5, 5]", "[4, 2, 3, 3]", "channels"});
  Case grouped;
  grouped.groups = 2;
  expect_error(op({1, 3, 5, 5}, {4, 1, 3, 3}, grouped), {"groups=2", "[1, 3, 5, 5]"});
  expect_error(op({1, 4, 5, 5}, {3, 2, 3, 3}, grouped), {"groups=2", "[3, 2, 3, 3]"});
  expect_error(op({1, 3, 2, 5}, {4, 3, 3, 3}), {"[1, 3, 2, 5]", "[4, 3, 3, 3]", "too small"});
  Case dilated;
  dilated.dilations = {3, 1};
  expect_error(op({1, 3, 6, 6}, {4, 3, 3, 3}, dilated), {"too small", "7"});
  expect_error(op({3, 5, 5}, {4, 3, 3, 3}), {"4-D", "[3, 5, 5]"});
  Case bad_pads;
  bad_pads.paddings = {1, 1, 1};
  expect_error(op({1, 3, 5, 5}, {4, 3, 3, 3}, bad_pads), {"paddings", "[1, 1, 1]"});
  Case bad_stride;
  bad_stride.strides = {0, 1};
  expect_error(op({1, 3, 5, 5}, {4, 3, 3, 3}, bad_stride), {"strides", "[0, 1]"});

  OpTest nhwc = op({1, 3, 5, 5}, {4, 3, 3, 3});
  nhwc.attr("data_format", std::string("NHWC"));
  expect_error(nhwc, {"NHWC", "NCHW"});
  OpTest bad_bias = op({1, 3, 5, 5}, {4, 3, 3, 3});
  bad_bias.input("Bias", random_tensor({3}, DType::kF32, 3));
  expect_error(bad_bias, {"Bias", "[4]", "[3]"});
  OpTest mixed("conv2d");
  mixed.input("Input", random_tensor({1, 3, 5, 5}, DType::kF32, 1))
      .input("Filter", random_tensor({4, 3, 3, 3}, DType::kF64, 2))
      .output("Output");
  expect_error(mixed, {"float32", "float64"});
}

TEST(Conv2dOp, FusedReluHasNoGradient) {
  Program prog;
  BlockBuilder b(&prog);
  const std::string x = b.data("x", DType::kF64, {1, 1, 4, 4});
  const std::string w = b.persistable("w", DType::kF64, {2, 1, 3, 3});
  b.op("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {"y"}}}, {{"fuse_relu", true}});
  const std::string message = error_of([&] { append_backward(prog, "y"); });
  EXPECT_NE(message.find("fuse_relu=true"), std::string::npos) << message;
  EXPECT_NE(message.find("no gradient"), std::string::npos) << message;

  const Case c{{1, 1, 4, 4}, {2, 1, 3, 3}};
  OpTest grad = conv_op("conv2d_grad", random_tensor(c.x, DType::kF32, 1),
                        random_tensor(c.w, DType::kF32, 2), c);
  grad.input("Output@GRAD", random_tensor({1, 2, 2, 2}, DType::kF32, 3))
      .output("Input@GRAD")
      .attr("fuse_relu", true);
  expect_error(grad, {"fuse_relu=true", "no gradient"});
}

// ---------------------------------------------------------------- conv2d_transpose

const std::vector<Case>& transpose_cases() {
  static const std::vector<Case> cases = {
      {{2, 3, 4, 4}, {3, 2, 3, 3}},                                        // plain
      {{2, 3, 4, 5}, {3, 4, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, {1, 1}},     // stride 2, out pad
      {{1, 2, 5, 4}, {2, 3, 3, 2}, {2, 1}, {1, 0, 0, 1}},                  // asymmetric padding
      {{1, 2, 4, 4}, {2, 2, 3, 3}, {1, 1}, {0, 0}, {2, 2}, 1, {1, 1}},     // out pad < dilation
      {{2, 4, 3, 3}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 2},             // two groups
      {{1, 3, 5, 5}, {3, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 3, {1, 0}},     // depthwise
      {{2, 16, 7, 7}, {16, 8, 2, 2}, {2, 2}},                              // 2x upsampling
      {{2, 32, 5, 5}, {32, 16, 3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, {1, 1}},  // blocked layouts
  };
  return cases;
}

TEST(Conv2dTransposeOp, ForwardMatchesReference) {
  for (DType dtype : kFloatTypes) {
    for (const Case& c : transpose_cases()) {
      SCOPED_TRACE(str_cat(dtype_name(dtype), " ", describe(c)));
      Tensor x = random_tensor(c.x, dtype, 1), w = random_tensor(c.w, dtype, 2);
      Tensor want = from_f64(reference_conv2d_transpose(x, w, c), dtype);
      if (dtype == DType::kF32) {
        conv_op("conv2d_transpose", x, w, c).check_output("Output", want, 1e-5, 1e-4);
      } else {
        conv_op("conv2d_transpose", x, w, c).check_output("Output", want, 1e-12, 1e-12);
      }
    }
  }
}

TEST(Conv2dTransposeOp, GradientsMatchFiniteDifferences) {
  for (const Case& c : transpose_cases()) {
    if (c.x.numel() > 100) continue;  // finite differences on the small cases
    SCOPED_TRACE(describe(c));
    conv_op("conv2d_transpose", random_tensor(c.x, DType::kF64, 3),
            random_tensor(c.w, DType::kF64, 4), c)
        .check_grad({"Input", "Filter"}, "Output");
  }
}

TEST(Conv2dTransposeOp, Float32GradAgreesWithFloat64) {
  for (const Case& c : transpose_cases()) {
    SCOPED_TRACE(describe(c));
    Tensor x = random_tensor(c.x, DType::kF64, 5), w = random_tensor(c.w, DType::kF64, 6);
    Tensor dout = random_tensor(reference_conv2d_transpose(x, w, c).shape(), DType::kF64, 7);
    Tensor dx, dw;
    kernels::conv2d_transpose_grad(x, w, dout, params_of(c), &dx, &dw);
    OpTest t =
        conv_op("conv2d_transpose_grad", from_f64(x, DType::kF32), from_f64(w, DType::kF32), c);
    t.input("Output@GRAD", from_f64(dout, DType::kF32));
    t.output("Input@GRAD").output("Filter@GRAD");
    t.check_output("Input@GRAD", from_f64(dx, DType::kF32), 1e-4, 1e-4);
    t.check_output("Filter@GRAD", from_f64(dw, DType::kF32), 1e-3, 1e-4);
  }
}

TEST(Conv2dTransposeOp, ShapesAndErrors) {
  const auto p = kernels::conv_params({2, 2}, {1, 1}, {1, 1}, 1, {1, 1});
  EXPECT_EQ(kernels::conv2d_transpose_shape({-1, 8, 7, 7}, {8, 4, 3, 3}, p),
            Shape({-1, 4, 14, 14}));
  EXPECT_EQ(kernels::conv2d_transpose_shape({2, 8, -1, 7}, {8, -1, 3, 3}, p),
            Shape({2, -1, -1, 14}));
  auto op = [](Shape x, Shape w, Case c = {}) {
    c.x = x;
    c.w = w;
    return conv_op("conv2d_transpose", random_tensor(x, DType::kF32, 1),
                   random_tensor(w, DType::kF32, 2), c);
  };
  expect_error(op({1, 3, 4, 4}, {4, 2, 3, 3}), {"[1, 3, 4, 4]", "[4, 2, 3, 3]", "channels"});
  Case grouped;
  grouped.groups = 2;
  expect_error(op({1, 3, 4, 4}, {3, 2, 3, 3}, grouped), {"groups=2", "[1, 3, 4, 4]"});
  Case big_extra;
  big_extra.strides = {2, 2};
  big_extra.output_padding = {2, 0};
  expect_error(op({1, 3, 4, 4}, {3, 2, 3, 3}, big_extra), {"output_padding", "stride"});
  Case cropped;
  cropped.paddings = {3, 3};
  expect_error(op({1, 3, 2, 2}, {3, 2, 3, 3}, cropped), {"[1, 3, 2, 2]", "paddings"});
}

}  // namespace
}  // namespace skiff
