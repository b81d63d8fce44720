// conv3d and conv3d_transpose: values against float64 loops written here (strides,
// asymmetric padding, dilation, groups, bias, output padding) in f32 and f64 (conv3d also
// bf16); gradients by finite differences; the f32 grad kernels (oneDNN) against the f64
// ones; shape inference with unknown dims; errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "skiff/kernels/cpu/conv.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;
using Ints = std::vector<int64_t>;

struct Case {
  Shape x, w;
  Ints strides{1, 1, 1}, paddings{0, 0, 0}, dilations{1, 1, 1};
  int64_t groups = 1;
  Ints output_padding{};  // conv3d_transpose only
};

std::string describe(const Case& c) {
  return str_cat("x ", c.x, " w ", c.w, " strides ", Shape(c.strides), " paddings ",
                 Shape(c.paddings), " dilations ", Shape(c.dilations), " groups ", c.groups);
}

// (front, back, top, bottom, left, right) from Paddle's 3 or 6 paddings.
Ints six_pads(const Ints& p) {
  return p.size() == 3 ? Ints{p[0], p[0], p[1], p[1], p[2], p[2]} : p;
}

// conv3d in float64 straight from the definition.
Tensor reference_conv3d(const Tensor& input, const Tensor& filter, const Tensor* bias,
                        const Case& c) {
  const Tensor x = to_f64(input), w = to_f64(filter);
  const Ints pad = six_pads(c.paddings);
  const int64_t n = x.dim(0), ch = x.dim(1), m = w.dim(0), cg = w.dim(1);
  int64_t in[3], k[3], out[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = x.dim(2 + i);
    k[i] = w.dim(2 + i);
    out[i] =
        (in[i] + pad[2 * i] + pad[2 * i + 1] - c.dilations[i] * (k[i] - 1) - 1) / c.strides[i] + 1;
  }
  const int64_t mg = m / c.groups;
  EXPECT_EQ(cg * c.groups, ch);
  const Tensor b64 = bias ? to_f64(*bias) : Tensor::zeros({m}, DType::kF64);
  Tensor result = Tensor::zeros({n, m, out[0], out[1], out[2]}, DType::kF64);
  const double* xp = x.data<double>();
  const double* wp = w.data<double>();
  double* op = result.data<double>();
  const int64_t out_vol = out[0] * out[1] * out[2], in_vol = in[0] * in[1] * in[2];
  const int64_t k_vol = k[0] * k[1] * k[2];
  for (int64_t idx = 0; idx < result.numel(); ++idx) {
    const int64_t ox = idx % out[2], oy = idx / out[2] % out[1];
    const int64_t oz = idx / (out[2] * out[1]) % out[0];
    const int64_t mo = idx / out_vol % m, b = idx / (out_vol * m);
    double s = b64.data<double>()[mo];
    for (int64_t ci = 0; ci < cg; ++ci) {
      for (int64_t kk = 0; kk < k_vol; ++kk) {
        const int64_t kx = kk % k[2], ky = kk / k[2] % k[1], kz = kk / (k[2] * k[1]);
        const int64_t iz = oz * c.strides[0] - pad[0] + kz * c.dilations[0];
        const int64_t iy = oy * c.strides[1] - pad[2] + ky * c.dilations[1];
        const int64_t ix = ox * c.strides[2] - pad[4] + kx * c.dilations[2];
        if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || ix < 0 || ix >= in[2]) continue;
        const int64_t xc = (mo / mg) * cg + ci;
        s += xp[(b * ch + xc) * in_vol + (iz * in[1] + iy) * in[2] + ix] *
             wp[(mo * cg + ci) * k_vol + kk];
      }
    }
    op[idx] = s;
  }
  return result;
}

// conv3d_transpose in float64 from the definition: each Input cell scatters Filter into
// Output, then the output padding cells are added and the paddings cropped.
Tensor reference_conv3d_transpose(const Tensor& input, const Tensor& filter, const Case& c) {
  const Tensor x = to_f64(input), w = to_f64(filter);
  const Ints pad = six_pads(c.paddings);
  const int64_t n = x.dim(0), ch = x.dim(1), mg = w.dim(1), m = mg * c.groups;
  const int64_t cg = ch / c.groups;
  int64_t in[3], k[3], out[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = x.dim(2 + i);
    k[i] = w.dim(2 + i);
    out[i] = (in[i] - 1) * c.strides[i] - pad[2 * i] - pad[2 * i + 1] +
             c.dilations[i] * (k[i] - 1) + 1 + (c.output_padding.empty() ? 0 : c.output_padding[i]);
  }
  Tensor result = Tensor::zeros({n, m, out[0], out[1], out[2]}, DType::kF64);
  const double* xp = x.data<double>();
  const double* wp = w.data<double>();
  double* op = result.data<double>();
  const int64_t in_vol = in[0] * in[1] * in[2], k_vol = k[0] * k[1] * k[2];
  const int64_t out_vol = out[0] * out[1] * out[2];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < ch; ++ci)
      for (int64_t cell = 0; cell < in_vol; ++cell) {
        const int64_t ix = cell % in[2], iy = cell / in[2] % in[1], iz = cell / (in[2] * in[1]);
        const double v = xp[(b * ch + ci) * in_vol + cell];
        for (int64_t mo = 0; mo < mg; ++mo)
          for (int64_t kk = 0; kk < k_vol; ++kk) {
            const int64_t kx = kk % k[2], ky = kk / k[2] % k[1], kz = kk / (k[2] * k[1]);
            const int64_t oz = iz * c.strides[0] - pad[0] + kz * c.dilations[0];
            const int64_t oy = iy * c.strides[1] - pad[2] + ky * c.dilations[1];
            const int64_t ox = ix * c.strides[2] - pad[4] + kx * c.dilations[2];
            if (oz < 0 || oz >= out[0] || oy < 0 || oy >= out[1] || ox < 0 || ox >= out[2]) {
              continue;
            }
            const int64_t mc = (ci / cg) * mg + mo;
            op[(b * m + mc) * out_vol + (oz * out[1] + oy) * out[2] + ox] +=
                v * wp[(ci * mg + mo) * k_vol + kk];
          }
      }
  return result;
}

OpTest conv3d_op(const std::string& type, const Tensor& x, const Tensor& w, const Case& c) {
  OpTest t(type);
  t.input("Input", x).input("Filter", w);
  if (type.find("_grad") == std::string::npos) t.output("Output");
  if (type == "conv3d_transpose") t.attr("output_padding", c.output_padding);
  t.attr("strides", c.strides)
      .attr("paddings", c.paddings)
      .attr("dilations", c.dilations)
      .attr("groups", c.groups)
      .attr("data_format", std::string("NCDHW"));
  return t;
}

std::vector<Case> conv3d_cases() {
  return {
      {{2, 3, 4, 5, 5}, {4, 3, 3, 3, 3}},
      {{1, 2, 5, 6, 4}, {3, 2, 2, 3, 2}, {2, 1, 2}, {1, 0, 0, 1, 1, 0}},
      {{1, 2, 6, 6, 6}, {2, 2, 2, 2, 2}, {1, 2, 1}, {1, 1, 1}, {2, 1, 2}},
      {{2, 4, 4, 4, 4}, {6, 2, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2},
      {{1, 3, 3, 5, 5}, {3, 1, 1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, 3},  // depthwise
      {{2, 16, 4, 6, 6}, {16, 16, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}},  // oneDNN's blocked layouts
  };
}

TEST(Conv3dOp, MatchesReferenceLoop) {
  for (const Case& c : conv3d_cases()) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      for (bool with_bias : {false, true}) {
        SCOPED_TRACE(describe(c) + " " + dtype_name(dtype) + (with_bias ? " bias" : ""));
        Tensor x = random_tensor(c.x, dtype, 1), w = random_tensor(c.w, dtype, 2);
        Tensor bias = random_tensor({c.w[0]}, dtype, 3);
        OpTest t = conv3d_op("conv3d", x, w, c);
        if (with_bias) t.input("Bias", bias);
        const Tensor want = from_f64(reference_conv3d(x, w, with_bias ? &bias : nullptr, c), dtype);
        if (dtype == DType::kF32) {
          t.check_output("Output", want, 1e-5, 1e-4);
        } else {
          t.check_output("Output", want, 1e-12, 1e-12);
        }
      }
    }
  }
}

TEST(Conv3dOp, GradientsMatchFiniteDifferences) {
  const std::vector<Case> cases = conv3d_cases();
  for (size_t i = 0; i + 1 < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(describe(c));
    OpTest t = conv3d_op("conv3d", random_tensor(c.x, DType::kF64, 4),
                         random_tensor(c.w, DType::kF64, 5), c);
    t.input("Bias", random_tensor({c.w[0]}, DType::kF64, 6));
    t.check_grad({"Input", "Filter", "Bias"}, "Output");
  }
  const Case& c = cases[0];
  OpTest broadcast_bias = conv3d_op("conv3d", random_tensor(c.x, DType::kF64, 7),
                                    random_tensor(c.w, DType::kF64, 8), c);
  broadcast_bias.input("Bias", random_tensor({1, c.w[0], 1, 1, 1}, DType::kF64, 9));
  broadcast_bias.check_grad({"Input", "Filter", "Bias"}, "Output");
  broadcast_bias.check_grad({"Filter"}, "Output");
}

// conv3d_grad in float32 (oneDNN) against float64 (loops, checked above).
TEST(Conv3dOp, Float32GradAgreesWithFloat64) {
  for (const Case& c : conv3d_cases()) {
    SCOPED_TRACE(describe(c));
    Tensor x = random_tensor(c.x, DType::kF64, 10), w = random_tensor(c.w, DType::kF64, 11);
    Tensor out = reference_conv3d(x, w, nullptr, c);
    Tensor dout = random_tensor(out.shape(), DType::kF64, 12);
    Tensor dx, dw, db;
    const auto p = kernels::conv3d_params(c.strides, c.paddings, c.dilations, c.groups);
    kernels::conv3d_grad(x, w, dout, p, &dx, &dw, &db);
    OpTest t = conv3d_op("conv3d_grad", from_f64(x, DType::kF32), from_f64(w, DType::kF32), c);
    t.input("Output@GRAD", from_f64(dout, DType::kF32));
    t.output("Input@GRAD").output("Filter@GRAD").output("Bias@GRAD");
    t.check_output("Input@GRAD", from_f64(dx, DType::kF32), 1e-4, 1e-4);
    t.check_output("Filter@GRAD", from_f64(dw, DType::kF32), 1e-3, 1e-4);
    t.check_output("Bias@GRAD", from_f64(db, DType::kF32), 1e-3, 1e-4);
  }
}

// bfloat16 (oneDNN's bf16 primitive, or float32 rounded once): against the float64 loop on
// the same bfloat16 values, within one bfloat16 unit plus float32 accumulation.
TEST(Conv3dOp, Bfloat16MatchesReferenceOnItsValues) {
  const std::vector<Case> cases = conv3d_cases();
  for (const Case& c : {cases[0], cases[3], cases[5]}) {
    SCOPED_TRACE(describe(c));
    Tensor x = random_tensor(c.x, DType::kBF16, 13), w = random_tensor(c.w, DType::kBF16, 14);
    Tensor bias = random_tensor({c.w[0]}, DType::kBF16, 15);
    OpTest t = conv3d_op("conv3d", x, w, c);
    t.input("Bias", bias);
    const Tensor out = t.run().at("Output")[0];
    ASSERT_EQ(out.dtype(), DType::kBF16);
    std::string why;
    EXPECT_TRUE(
        testing::all_close(to_f64(out), reference_conv3d(x, w, &bias, c), 1e-2, 1.0 / 128, &why))
        << why;
    t.check_grad_in_dtype({"Input", "Filter", "Bias"}, 5e-2, 1.0 / 64, "Output");
  }
}

std::vector<Case> transpose_cases() {
  return {
      {{2, 3, 3, 4, 4}, {3, 4, 3, 3, 3}},
      {{1, 2, 3, 4, 3}, {2, 3, 2, 3, 2}, {2, 1, 2}, {1, 0, 0, 1, 1, 0}, {1, 1, 1}, 1, {1, 0, 1}},
      {{1, 2, 3, 3, 3}, {2, 2, 2, 2, 2}, {1, 2, 1}, {1, 1, 1}, {2, 1, 2}},
      {{2, 4, 3, 3, 3}, {4, 3, 3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2, {1, 1, 0}},
      {{1, 16, 3, 4, 4}, {16, 16, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}},  // oneDNN's blocked layouts
  };
}

TEST(Conv3dTransposeOp, MatchesReferenceLoop) {
  for (const Case& c : transpose_cases()) {
    for (DType dtype : {DType::kF32, DType::kF64}) {
      SCOPED_TRACE(describe(c) + " " + dtype_name(dtype));
      Tensor x = random_tensor(c.x, dtype, 16), w = random_tensor(c.w, dtype, 17);
      OpTest t = conv3d_op("conv3d_transpose", x, w, c);
      const Tensor want = from_f64(reference_conv3d_transpose(x, w, c), dtype);
      if (dtype == DType::kF32) {
        t.check_output("Output", want, 1e-5, 1e-4);
      } else {
        t.check_output("Output", want, 1e-12, 1e-12);
      }
    }
  }
}

TEST(Conv3dTransposeOp, GradientsMatchFiniteDifferences) {
  const std::vector<Case> cases = transpose_cases();
  for (size_t i = 0; i + 1 < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(describe(c));
    conv3d_op("conv3d_transpose", random_tensor(c.x, DType::kF64, 18),
              random_tensor(c.w, DType::kF64, 19), c)
        .check_grad({"Input", "Filter"}, "Output");
  }
}

TEST(Conv3dTransposeOp, ShapesAndErrors) {
  const auto p = kernels::conv3d_params({2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, {1, 0, 1});
  EXPECT_EQ(kernels::conv3d_transpose_shape({-1, 3, 4, 5, -1}, {3, 2, 3, 3, 3}, p),
            Shape({-1, 2, 8, 9, -1}));
  Case big_extra{{1, 3, 3, 3, 3}, {3, 2, 3, 3, 3}};
  big_extra.output_padding = {0, 1, 0};
  expect_error(conv3d_op("conv3d_transpose", random_tensor(big_extra.x, DType::kF32, 1),
                         random_tensor(big_extra.w, DType::kF32, 2), big_extra),
               {"conv3d_transpose", "output_padding", "stride"});
  Case channels{{1, 4, 3, 3, 3}, {3, 2, 3, 3, 3}};
  expect_error(conv3d_op("conv3d_transpose", random_tensor(channels.x, DType::kF32, 1),
                         random_tensor(channels.w, DType::kF32, 2), channels),
               {"[1, 4, 3, 3, 3]", "[3, 2, 3, 3, 3]", "channels"});
}

TEST(Conv3dOp, ShapeInferenceWithUnknownDims) {
  const auto p = kernels::conv3d_params({2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1);
  EXPECT_EQ(kernels::conv3d_shape({-1, 3, 8, 28, 28}, {8, 3, 3, 3, 3}, p),
            Shape({-1, 8, 4, 14, 14}));
  EXPECT_EQ(kernels::conv3d_shape({4, -1, -1, 9, 9}, {8, 3, 3, 3, 3}, p), Shape({4, 8, -1, 5, 5}));
  const auto six = kernels::conv3d_params({1, 1, 1}, {0, 1, 1, 2, 0, 0}, {1, 1, 1}, 1);
  EXPECT_EQ(kernels::conv3d_shape({1, 1, 4, 4, 4}, {1, 1, 3, 3, 3}, six), Shape({1, 1, 3, 5, 2}));
}

TEST(Conv3dOp, ErrorsNameTheShapes) {
  auto op = [](Shape x, Shape w, Case c = {}) {
    c.x = x;
    c.w = w;
    return conv3d_op("conv3d", random_tensor(x, DType::kF32, 1), random_tensor(w, DType::kF32, 2),
                     c);
  };
  expect_error(op({1, 3, 4, 5, 5}, {4, 2, 3, 3, 3}), {"[1, 3, 4, 5, 5]", "channels"});
  expect_error(op({1, 3, 2, 5, 5}, {4, 3, 3, 3, 3}), {"too small", "depth"});
  expect_error(op({3, 4, 5, 5}, {4, 3, 3, 3, 3}), {"5-D", "[3, 4, 5, 5]"});
  Case bad_pads;
  bad_pads.paddings = {1, 1};
  expect_error(op({1, 3, 5, 5, 5}, {4, 3, 3, 3, 3}, bad_pads), {"paddings", "[1, 1]"});
  Case bad_stride;
  bad_stride.strides = {1, 0, 1};
  expect_error(op({1, 3, 5, 5, 5}, {4, 3, 3, 3, 3}, bad_stride), {"strides", "[1, 0, 1]"});
  OpTest ndhwc = op({1, 3, 5, 5, 5}, {4, 3, 3, 3, 3});
  ndhwc.attr("data_format", std::string("NDHWC"));
  expect_error(ndhwc, {"NDHWC", "NCDHW"});
  OpTest bad_bias = op({1, 3, 5, 5, 5}, {4, 3, 3, 3, 3});
  bad_bias.input("Bias", random_tensor({3}, DType::kF32, 3));
  expect_error(bad_bias, {"Bias", "[4]", "[3]"});
}

}  // namespace
}  // namespace skiff
