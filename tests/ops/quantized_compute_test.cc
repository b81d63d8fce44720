// quantized_conv2d and quantized_matmul against references that sum the integer products
// exactly (int64) and then scale as the kernels do (float32 acc * (input scale * weight
// scale) + bias in one rounding, relu): equal to the last bit. Shapes reach every path of the
// products: rows and columns past a block (tails), odd sums (a pair padded), groups, strides,
// padding, dilation, a 1x1 kernel (no columns made), one image (threads split the columns)
// and several (threads split the images), and oneDNN's path where the CPU (or the cap) makes
// it exact, images in chunks; OutScale's int8 equals quantize_linear of the float result.
// (Not differentiable: no gradient check.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "skiff/kernels/cpu/quantize.h"
#include "tests/testing/error_of.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::error_of;
using testing::OpTest;
using testing::random_tensor;

Tensor one(float v) { return Tensor::from_vector<float>({1}, {v}); }

struct ConvCase {
  Shape input, filter;
  std::vector<int64_t> strides{1, 1}, paddings{0, 0}, dilations{1, 1};
  int64_t groups = 1;
};

// The float result of the int8 convolution, as the kernel computes it.
Tensor reference_conv(const ConvCase& c, const Tensor& x, const Tensor& w, float xs,
                      const std::vector<float>& ws, const std::vector<float>& bias, bool relu) {
  const int64_t n = c.input[0], ch = c.input[1], h = c.input[2], wd = c.input[3];
  const int64_t m = c.filter[0], cg = c.filter[1], kh = c.filter[2], kw = c.filter[3];
  const int64_t pt = c.paddings[0], pl = c.paddings[c.paddings.size() == 4 ? 2 : 1];
  const int64_t pb = c.paddings.size() == 4 ? c.paddings[1] : pt;
  const int64_t pr = c.paddings.size() == 4 ? c.paddings[3] : pl;
  const int64_t oh = (h + pt + pb - c.dilations[0] * (kh - 1) - 1) / c.strides[0] + 1;
  const int64_t ow = (wd + pl + pr - c.dilations[1] * (kw - 1) - 1) / c.strides[1] + 1;
  const int64_t mg = m / c.groups;
  const int8_t* xv = x.data<int8_t>();
  const int8_t* wv = w.data<int8_t>();
  std::vector<float> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < m; ++o) {
      const int64_t g = o / mg;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          int64_t acc = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * c.strides[0] - pt + i * c.dilations[0];
                const int64_t ix = xx * c.strides[1] - pl + j * c.dilations[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += int64_t{xv[((b * ch + g * cg + ci) * h + iy) * wd + ix]} *
                       wv[((o * cg + ci) * kh + i) * kw + j];
              }
            }
          }
          const float scale = xs * ws[ws.size() == 1 ? 0 : o];
          const float v = bias.empty() ? static_cast<float>(acc) * scale
                                       : std::fma(static_cast<float>(acc), scale, bias[o]);
          out.push_back(relu && v < 0 ? 0.f : v);
        }
      }
    }
  }
  return Tensor::from_vector<float>({n, m, oh, ow}, out);
}

std::vector<float> ramp(int64_t n, float first, float step) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = first + step * static_cast<float>(i);
  return v;
}

// `x_low` 0: an input after relu (no negative value), which takes the byte products.
void check_conv(const ConvCase& c, bool relu, bool bias_4d, uint64_t seed, double x_low = -128) {
  SCOPED_TRACE(::testing::Message() << "case of seed " << seed << ", input " << c.input);
  const Tensor x = random_tensor(c.input, DType::kI8, seed, x_low, 128);
  const Tensor w = random_tensor(c.filter, DType::kI8, seed + 1, -128, 128);
  const int64_t m = c.filter[0];
  const std::vector<float> ws = ramp(m, 0.002f, 0.0003f), bias = ramp(m, -20.f, 3.f);
  OpTest t("quantized_conv2d");
  t.input("Input", x)
      .input("Filter", w)
      .input("InputScale", one(0.01f))
      .input("FilterScale", Tensor::from_vector<float>({m}, ws))
      .input("Bias", bias_4d ? Tensor::from_vector<float>({1, m, 1, 1}, bias)
                             : Tensor::from_vector<float>({m}, bias))
      .attr("strides", c.strides)
      .attr("paddings", c.paddings)
      .attr("dilations", c.dilations)
      .attr("groups", c.groups)
      .attr("fuse_relu", relu)
      .output("Output");
  t.check_output("Output", reference_conv(c, x, w, 0.01f, ws, bias, relu), 0, 0);
}

TEST(QuantizedConv2D, ExactIntegerSumsScaledPerOutputChannel) {
  // W3's first layer (one input channel: 9 sums, odd), one image and several.
  check_conv({{1, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}}, true, false, 1);
  check_conv({{3, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}}, false, true, 2);
  // Many channels (sums of 288), a column count past the panels (7 x 7 = 49).
  check_conv({{2, 32, 7, 7}, {20, 32, 3, 3}, {1, 1}, {1, 1}}, true, false, 3);
  // Strides, uneven padding, dilation, groups.
  check_conv({{2, 4, 11, 9}, {6, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {2, 1}, 2}, false, false, 4);
  // Depthwise, and a 1x1 kernel of stride 1 (the image is its own columns).
  check_conv({{2, 5, 6, 6}, {5, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 5}, true, false, 5);
  check_conv({{2, 7, 5, 3}, {9, 7, 1, 1}}, false, true, 6);
  // "Same" widths at stride 1 (columns made by whole-plane copies): dilated, and padded
  // unevenly.
  check_conv({{2, 3, 7, 9}, {4, 3, 3, 3}, {1, 1}, {2, 2}, {2, 2}}, false, false, 10);
  check_conv({{2, 3, 6, 5}, {4, 3, 3, 3}, {1, 1}, {0, 2, 1, 1}}, true, false, 11);
  // Inputs after relu (the byte products), sums of 9 (a quad padded) and 288.
  check_conv({{1, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}}, true, false, 7, 0);
  check_conv({{3, 32, 7, 7}, {20, 32, 3, 3}, {1, 1}, {1, 1}}, false, true, 8, 0);
  check_conv({{2, 4, 11, 9}, {6, 2, 3, 2}, {2, 1}, {1, 0, 2, 1}, {2, 1}, 2}, true, false, 9, 0);
  // Images in more than one chunk (oneDNN's sums are kept to about 512 KiB: 5 of these
  // images), the last one shorter.
  check_conv({{7, 4, 28, 28}, {32, 4, 3, 3}, {1, 1}, {1, 1}}, true, true, 12, 0);
  check_conv({{7, 4, 28, 28}, {32, 4, 3, 3}, {1, 1}, {1, 1}}, false, false, 13);
}

TEST(QuantizedConv2D, OneFilterScaleAndNoBias) {
  const ConvCase c{{2, 3, 5, 5}, {4, 3, 3, 3}, {1, 1}, {1, 1}};
  const Tensor x = random_tensor(c.input, DType::kI8, 7, -128, 128);
  const Tensor w = random_tensor(c.filter, DType::kI8, 8, -128, 128);
  OpTest t("quantized_conv2d");
  t.input("Input", x)
      .input("Filter", w)
      .input("InputScale", one(0.5f))
      .input("FilterScale", one(0.25f))
      .attr("paddings", std::vector<int64_t>{1, 1})
      .output("Output");
  t.check_output("Output", reference_conv(c, x, w, 0.5f, {0.25f}, {}, false), 0, 0);
}

// OutScale: the int8 output is quantize_linear of the float output, bit for bit.
Tensor quantized(const Tensor& y, float scale) {
  Tensor q;
  kernels::quantize_linear(y, one(scale), Tensor(), 0, 0, DType::kI8, &q);
  return q;
}

TEST(QuantizedConv2D, OutScaleRequantizesToTheNextLayersGrid) {
  const ConvCase c{{2, 8, 6, 6}, {16, 8, 3, 3}, {1, 1}, {1, 1}};
  const Tensor x = random_tensor(c.input, DType::kI8, 9, -128, 128);
  const Tensor w = random_tensor(c.filter, DType::kI8, 10, -128, 128);
  const std::vector<float> ws = ramp(16, 0.001f, 0.0001f);
  const Tensor want = reference_conv(c, x, w, 0.02f, ws, {}, true);
  OpTest t("quantized_conv2d");
  t.input("Input", x)
      .input("Filter", w)
      .input("InputScale", one(0.02f))
      .input("FilterScale", Tensor::from_vector<float>({16}, ws))
      .input("OutScale", one(0.02f))
      .attr("paddings", std::vector<int64_t>{1, 1})
      .attr("fuse_relu", true)
      .output("Output");
  const Tensor got = t.run().at("Output")[0];
  ASSERT_EQ(got.dtype(), DType::kI8);
  EXPECT_EQ(got.to_vector<int8_t>(), quantized(want, 0.02f).to_vector<int8_t>());
  // Some values saturate, some do not.
  const std::vector<int8_t> v = got.to_vector<int8_t>();
  EXPECT_GT(std::count(v.begin(), v.end(), int8_t{127}), 0);
  EXPECT_GT(std::count_if(v.begin(), v.end(), [](int8_t e) { return e > 0 && e < 127; }), 0);
}

// int8 [N, M, H / 2, W / 2]: the maximum of each 2x2 window at stride 2 of y.
Tensor max_pooled(const Tensor& y) {
  const int64_t planes = y.shape()[0] * y.shape()[1], h = y.shape()[2], w = y.shape()[3];
  const int64_t oh = h / 2, ow = w / 2;
  const int8_t* v = y.data<int8_t>();
  std::vector<int8_t> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int8_t* cell = v + (p * h + 2 * i) * w + 2 * j;
        out.push_back(std::max(std::max(cell[0], cell[1]), std::max(cell[w], cell[w + 1])));
      }
  return Tensor::from_vector<int8_t>({y.shape()[0], y.shape()[1], oh, ow}, out);
}

// fuse_max_pool_2x2: pool2d's 2x2 maxima of the int8 output, bit for bit. Odd output
// extents (a last row and column outside every window), a negative filter scale (the
// pooled sum is then the window's smallest), signed and non-negative inputs, several
// chunks of images, no input channels.
TEST(QuantizedConv2D, FusedMaxPoolingIsPool2dOfTheInt8Output) {
  struct Case {
    ConvCase conv;
    double x_low;
    bool relu;
  };
  for (const Case& c : {Case{{{2, 3, 9, 7}, {5, 3, 3, 3}, {1, 1}, {1, 1}}, -128, false},
                        Case{{{3, 8, 14, 14}, {16, 8, 3, 3}, {1, 1}, {1, 1}}, 0, true},
                        Case{{{7, 4, 28, 28}, {32, 4, 3, 3}, {1, 1}, {1, 1}}, 0, false},
                        Case{{{1, 1, 28, 28}, {32, 1, 3, 3}, {1, 1}, {1, 1}}, 0, true},
                        // No input channels: the bias alone, pooled.
                        Case{{{2, 0, 5, 4}, {3, 0, 3, 3}, {1, 1}, {1, 1}}, 0, false}}) {
    SCOPED_TRACE(::testing::Message() << "input " << c.conv.input);
    const Tensor x = random_tensor(c.conv.input, DType::kI8, 21, c.x_low, 128);
    const Tensor w = random_tensor(c.conv.filter, DType::kI8, 22, -128, 128);
    const int64_t m = c.conv.filter[0];
    std::vector<float> ws = ramp(m, 0.001f, 0.0001f);
    ws[1] = -ws[1];
    const std::vector<float> bias = ramp(m, -2.f, 0.3f);
    const Tensor want =
        max_pooled(quantized(reference_conv(c.conv, x, w, 0.02f, ws, bias, c.relu), 0.05f));
    OpTest t("quantized_conv2d");
    t.input("Input", x)
        .input("Filter", w)
        .input("InputScale", one(0.02f))
        .input("FilterScale", Tensor::from_vector<float>({m}, ws))
        .input("Bias", Tensor::from_vector<float>({m}, bias))
        .input("OutScale", one(0.05f))
        .attr("paddings", c.conv.paddings)
        .attr("fuse_relu", c.relu)
        .attr("fuse_max_pool_2x2", true)
        .output("Output");
    const Tensor got = t.run().at("Output")[0];
    ASSERT_EQ(got.shape(), want.shape());
    EXPECT_EQ(got.to_vector<int8_t>(), want.to_vector<int8_t>());
  }
}

TEST(QuantizedConv2D, FusedMaxPoolingNeedsAnInt8OutputAndAWindow) {
  const Tensor x = random_tensor({1, 2, 3, 3}, DType::kI8, 1, -128, 128);
  const Tensor w = random_tensor({4, 2, 3, 3}, DType::kI8, 2, -128, 128);
  for (const bool requantized : {false, true}) {
    OpTest t("quantized_conv2d");
    t.input("Input", x)
        .input("Filter", w)
        .input("InputScale", one(0.02f))
        .input("FilterScale", one(0.01f));
    if (requantized) t.input("OutScale", one(0.05f));  // a 1x1 output: no window
    t.attr("fuse_max_pool_2x2", true).output("Output");
    const std::string what = error_of([&] { t.run(); });
    EXPECT_NE(what.find(requantized ? "needs a 2x2 window" : "int8 outputs only"),
              std::string::npos)
        << what;
  }
}

// The reference of quantized_matmul: int64 sums, then scaled as the kernel scales.
Tensor reference_matmul(const Tensor& x, const Tensor& w, float xs, const std::vector<float>& ws,
                        const std::vector<float>& bias, bool relu) {
  const int64_t k = w.shape()[0], n = w.shape()[1], m = x.numel() / k;
  std::vector<float> out(m * n);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t i = 0; i < k; ++i)
        acc += int64_t{x.data<int8_t>()[r * k + i]} * w.data<int8_t>()[i * n + j];
      const float scale = xs * ws[ws.size() == 1 ? 0 : j];
      const float v = bias.empty() ? static_cast<float>(acc) * scale
                                   : std::fma(static_cast<float>(acc), scale, bias[j]);
      out[r * n + j] = relu && v < 0 ? 0.f : v;
    }
  }
  Shape shape = x.shape();
  shape[shape.rank() - 1] = n;
  return Tensor::from_vector<float>(shape, out);
}

TEST(QuantizedMatmul, IntegerProductsExactlyThenScaledPerChannel) {
  // The full int8 range, K = 300 (int32 sums beyond int16), rows in a leading batch dim.
  const Tensor x = random_tensor({2, 5, 300}, DType::kI8, 1, -128, 128);
  const Tensor w = random_tensor({300, 7}, DType::kI8, 2, -128, 128);
  const std::vector<float> ws = {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f};
  const std::vector<float> bias = {1, -2, 3, -4, 5, -6, 7};
  for (bool relu : {false, true}) {
    OpTest t("quantized_matmul");
    t.input("X", x)
        .input("W", w)
        .input("XScale", Tensor::from_vector<float>({1}, {0.003f}))
        .input("WScale", Tensor::from_vector<float>({7}, ws))
        .input("Bias", Tensor::from_vector<float>({7}, bias))
        .attr("fuse_relu", relu);
    t.check_output("Out", reference_matmul(x, w, 0.003f, ws, bias, relu), 1e-5, 1e-6);
  }
  OpTest per_tensor("quantized_matmul");
  per_tensor.input("X", x)
      .input("W", w)
      .input("XScale", Tensor::from_vector<float>({1}, {0.5f}))
      .input("WScale", Tensor::from_vector<float>({1}, {0.25f}));
  per_tensor.check_output("Out", reference_matmul(x, w, 0.5f, {0.25f}, {}, false), 0, 1e-6);
}

TEST(QuantizedMatmul, MismatchedOperandsAreNamed) {
  const std::string what = error_of([] {
    OpTest t("quantized_matmul");
    t.input("X", Tensor::zeros({2, 3}, DType::kI8))
        .input("W", Tensor::zeros({4, 5}, DType::kI8))
        .input("XScale", Tensor::from_vector<float>({1}, {1}))
        .input("WScale", Tensor::from_vector<float>({1}, {1}));
    t.run();
  });
  EXPECT_NE(what.find("quantized_matmul: X ('"), std::string::npos) << what;
  EXPECT_NE(what.find("do not chain"), std::string::npos) << what;
}

TEST(QuantizedMatmul, EveryBlockShapeSumsExactly) {
  // Rows below, at and past a block of 4; columns within a panel, at 16 and past it;
  // sums of 1, 7 and 64 (pairs and quads padded or not); signed inputs and inputs after
  // relu (the byte products); and long sums of full-range extremes.
  for (double x_low : {-128.0, 0.0}) {
    for (int64_t m : {1, 3, 4, 9, 64}) {
      for (int64_t n : {5, 16, 33}) {
        for (int64_t k : {1, 7, 64}) {
          const Tensor x = random_tensor({m, k}, DType::kI8, m * 100 + k, x_low, 128);
          const Tensor w = random_tensor({k, n}, DType::kI8, n * 100 + k, -128, 128);
          const std::vector<float> ws = ramp(n, 0.01f, 0.001f), bias = ramp(n, -1.f, 0.1f);
          OpTest t("quantized_matmul");
          t.input("X", x)
              .input("W", w)
              .input("XScale", one(0.02f))
              .input("WScale", Tensor::from_vector<float>({n}, ws))
              .input("Bias", Tensor::from_vector<float>({n}, bias))
              .attr("fuse_relu", true);
          SCOPED_TRACE(str_cat("m=", m, " n=", n, " k=", k, " x from ", x_low));
          t.check_output("Out", reference_matmul(x, w, 0.02f, ws, bias, true), 0, 0);
        }
      }
    }
  }
  const int64_t k = 4001;  // sums of 4001 products (beyond 2^25)
  for (int8_t xv : {int8_t{-128}, int8_t{127}}) {
    const Tensor x = Tensor::from_vector<int8_t>({8, k}, std::vector<int8_t>(8 * k, xv));
    const Tensor w = Tensor::from_vector<int8_t>({k, 3}, std::vector<int8_t>(3 * k, -128));
    OpTest t("quantized_matmul");
    t.input("X", x).input("W", w).input("XScale", one(1.f)).input("WScale", one(1.f));
    t.check_output(
        "Out", Tensor::from_vector<float>({8, 3}, std::vector<float>(24, -128.f * xv * k)), 0, 0);
  }
}

TEST(QuantizedMatmul, OutScaleRequantizes) {
  const Tensor x = random_tensor({6, 40}, DType::kI8, 11, -128, 128);
  const Tensor w = random_tensor({40, 20}, DType::kI8, 12, -128, 128);
  const std::vector<float> ws = ramp(20, 0.001f, 0.0002f);
  OpTest t("quantized_matmul");
  t.input("X", x)
      .input("W", w)
      .input("XScale", one(0.05f))
      .input("WScale", Tensor::from_vector<float>({20}, ws))
      .input("OutScale", one(0.1f));
  const Tensor got = t.run().at("Out")[0];
  ASSERT_EQ(got.dtype(), DType::kI8);
  EXPECT_EQ(got.to_vector<int8_t>(),
            quantized(reference_matmul(x, w, 0.05f, ws, {}, false), 0.1f).to_vector<int8_t>());
}

TEST(QuantizedConv2D, MistakesAreNamed) {
  auto run = [](const Tensor& input, const Tensor& filter, const Tensor& out_scale) {
    return error_of([&] {
      OpTest t("quantized_conv2d");
      t.input("Input", input)
          .input("Filter", filter)
          .input("InputScale", one(1.f))
          .input("FilterScale", one(1.f))
          .output("Output");
      if (out_scale.initialized()) t.input("OutScale", out_scale);
      t.run();
    });
  };
  const Tensor x = Tensor::zeros({1, 3, 5, 5}, DType::kI8);
  std::string what = run(x, Tensor::zeros({4, 2, 3, 3}, DType::kI8), Tensor());
  EXPECT_NE(what.find("channels"), std::string::npos) << what;
  what = run(Tensor::zeros({1, 3, 5, 5}, DType::kF32), Tensor::zeros({4, 3, 3, 3}, DType::kI8),
             Tensor());
  EXPECT_NE(what.find("quantized_conv2d: Input ("), std::string::npos) << what;
  EXPECT_NE(what.find("must be int8"), std::string::npos) << what;
  what = run(x, Tensor::zeros({4, 3, 3, 3}, DType::kI8), one(0.f));
  EXPECT_NE(what.find("OutScale 0 is not a positive finite number"), std::string::npos) << what;
}

}  // namespace
}  // namespace skiff
