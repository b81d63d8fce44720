// bfloat16 compute: matmul (bfloat16 or float32 result) and conv2d on oneDNN with their
// gradients, the elementwise binary ops, relu, and a small MLP program forward and
// backward. References are float64 computations on the bfloat16 values (for matmul and
// conv2d: skiff's float64 kernels, which matmul_test and conv_test check against loops).
//
// Tolerance: a bfloat16 result is the float32 sum rounded once, so it lies within half a
// unit in the last place (2^-9 relative) of the exact value, plus float32 accumulation
// error; the tests allow one unit, rtol 2^-8, and atol 1e-3 for sums near zero (operands in
// [-1, 1]). A float32 result from bfloat16 operands has only the accumulation error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;
using testing::random_tensor;
using testing::to_f64;

constexpr double kRtol = 1.0 / 256;  // one unit in bfloat16's last place
constexpr double kAtol = 1e-3;

void expect_close(const Tensor& got, const Tensor& want, double atol, double rtol,
                  const std::string& what) {
  std::string why;
  EXPECT_TRUE(testing::all_close(got, want, atol, rtol, &why)) << what << ": " << why;
}

// `t` with every floating input widened to float64: the reference run of the same op.
OpTest widened(const std::string& type, const std::vector<std::pair<std::string, Tensor>>& inputs) {
  OpTest t(type);
  for (const auto& [slot, value] : inputs)
    t.input(slot, is_floating(value.dtype()) ? to_f64(value) : value);
  return t;
}

// ---- matmul

struct MatmulCase {
  Shape x, y;
  bool tx = false, ty = false;
};

TEST(Bf16Matmul, MatchesFloat64OnBfloat16Values) {
  const std::vector<MatmulCase> cases = {{{4, 8}, {8, 5}},
                                         {{64, 96}, {96, 80}},
                                         {{64, 96}, {80, 96}, false, true},
                                         {{96, 64}, {96, 80}, true, false},
                                         {{2, 1, 3, 40}, {5, 40, 6}},
                                         {{40}, {40, 7}},
                                         {{3, 0}, {0, 4}}};
  int seed = 1;
  for (const MatmulCase& c : cases) {
    const Tensor x = random_tensor(c.x, DType::kBF16, seed++),
                 y = random_tensor(c.y, DType::kBF16, seed++);
    OpTest ref = widened("matmul", {{"X", x}, {"Y", y}});
    ref.attr("trans_x", c.tx).attr("trans_y", c.ty);
    const Tensor want = ref.run().at("Out")[0];
    const std::string what = "matmul " + c.x.str() + " x " + c.y.str();
    for (const char* out_dtype : {"", "float32"}) {
      OpTest t("matmul");
      t.input("X", x).input("Y", y).attr("trans_x", c.tx).attr("trans_y", c.ty);
      t.attr("out_dtype", std::string(out_dtype));
      const Tensor got = t.run().at("Out")[0];
      const bool f32 = out_dtype[0] != '\0';
      EXPECT_EQ(got.dtype(), f32 ? DType::kF32 : DType::kBF16) << what;
      if (f32) {
        expect_close(got, want, 1e-5, 1e-5, what + " -> float32");
      } else {
        expect_close(got, want, kAtol, kRtol, what + " -> bfloat16");
      }
    }
  }
}

TEST(Bf16Matmul, Gradients) {
  for (const MatmulCase& c : std::vector<MatmulCase>{{{6, 10}, {10, 7}},
                                                     {{10, 6}, {7, 10}, true, true},
                                                     {{2, 1, 3, 5}, {4, 5, 6}},
                                                     {{48, 64}, {64, 40}}}) {
    OpTest t("matmul");
    t.input("X", random_tensor(c.x, DType::kBF16, 3))
        .input("Y", random_tensor(c.y, DType::kBF16, 4));
    t.attr("trans_x", c.tx).attr("trans_y", c.ty);
    if (c.x.numel() < 100) t.check_grad({"X", "Y"});  // float64, by finite differences
    t.check_grad_in_dtype({"X", "Y"}, kAtol, kRtol);
  }
}

TEST(Bf16Matmul, Float32GradientOfAFloat32Result) {
  // With out_dtype float32, Out@GRAD is float32; it is rounded to bfloat16 for the products.
  const Tensor x = random_tensor({4, 6}, DType::kBF16, 5),
               y = random_tensor({6, 5}, DType::kBF16, 6);
  const Tensor dout = random_tensor({4, 5}, DType::kF32, 7);
  OpTest t("matmul_grad");
  t.input("X", x).input("Y", y).input("Out@GRAD", dout).output("X@GRAD").output("Y@GRAD");
  const auto outs = t.run();
  const Tensor g = to_f64(from_f64(to_f64(dout), DType::kBF16));
  OpTest dx = widened("matmul", {{"X", g}, {"Y", y}});
  dx.attr("trans_y", true);
  OpTest dy = widened("matmul", {{"X", x}, {"Y", g}});
  dy.attr("trans_x", true);
  EXPECT_EQ(outs.at("X@GRAD")[0].dtype(), DType::kBF16);
  expect_close(outs.at("X@GRAD")[0], dx.run().at("Out")[0], kAtol, kRtol, "X@GRAD");
  expect_close(outs.at("Y@GRAD")[0], dy.run().at("Out")[0], kAtol, kRtol, "Y@GRAD");
}

TEST(Bf16Matmul, Errors) {
  const Tensor h = random_tensor({2, 3}, DType::kBF16, 1),
               f = random_tensor({3, 2}, DType::kF32, 2);
  OpTest mixed("matmul");
  mixed.input("X", h).input("Y", f);
  expect_error(mixed, {"bfloat16", "float32"});
  OpTest wide("matmul");
  wide.input("X", h)
      .input("Y", from_f64(to_f64(f), DType::kBF16))
      .attr("out_dtype", std::string("float64"));
  expect_error(wide, {"out_dtype", "float64", "bfloat16"});
  OpTest narrow("matmul");
  narrow.input("X", to_f64(h)).input("Y", to_f64(f)).attr("out_dtype", std::string("float32"));
  expect_error(narrow, {"out_dtype", "float32", "float64"});
}

// ---- conv2d

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides{1, 1}, paddings{1, 1}, dilations{1, 1};
  int64_t groups = 1;
  bool bias = true, relu = false;
};

OpTest conv_op(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor& b, bool wide) {
  std::vector<std::pair<std::string, Tensor>> in = {{"Input", x}, {"Filter", w}};
  if (c.bias) in.push_back({"Bias", b});
  OpTest t = wide ? widened("conv2d", in) : OpTest("conv2d");
  if (!wide)
    for (const auto& [slot, v] : in) t.input(slot, v);
  t.output("Output").attr("strides", c.strides).attr("paddings", c.paddings);
  t.attr("dilations", c.dilations).attr("groups", c.groups).attr("fuse_relu", c.relu);
  return t;
}

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {{2, 3, 9, 9}, {4, 3, 3, 3}},                                          // NCHW (gemm) path
      {{2, 16, 8, 8}, {32, 16, 3, 3}, {2, 2}},                               // blocked layouts
      {{1, 4, 7, 7}, {6, 2, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 2, false, true},  // groups, relu
  };
  return cases;
}

TEST(Bf16Conv2d, MatchesFloat64OnBfloat16Values) {
  int seed = 10;
  for (const ConvCase& c : conv_cases()) {
    const Tensor x = random_tensor(c.x, DType::kBF16, seed++),
                 w = random_tensor(c.w, DType::kBF16, seed++);
    const Tensor b = random_tensor({c.w[0]}, DType::kBF16, seed++);
    const Tensor got = conv_op(c, x, w, b, false).run().at("Output")[0];
    EXPECT_EQ(got.dtype(), DType::kBF16);
    expect_close(got, conv_op(c, x, w, b, true).run().at("Output")[0], kAtol, kRtol,
                 "conv2d " + c.x.str() + " * " + c.w.str());
  }
}

TEST(Bf16Conv2d, Gradients) {
  int seed = 20;
  for (const ConvCase& c : conv_cases()) {
    if (c.relu) continue;  // a fused relu has no gradient
    const Tensor x = random_tensor(c.x, DType::kBF16, seed++),
                 w = random_tensor(c.w, DType::kBF16, seed++);
    OpTest t = conv_op(c, x, w, random_tensor({c.w[0]}, DType::kBF16, seed++), false);
    t.check_grad_in_dtype({"Input", "Filter", "Bias"}, kAtol, kRtol, "Output");
  }
  OpTest small = conv_op(
      ConvCase{{1, 2, 4, 4}, {3, 2, 3, 3}}, random_tensor({1, 2, 4, 4}, DType::kBF16, 1),
      random_tensor({3, 2, 3, 3}, DType::kBF16, 2), random_tensor({3}, DType::kBF16, 3), false);
  small.check_grad({"Input", "Filter", "Bias"}, "Output");  // float64 finite differences
}

TEST(Bf16Conv2d, EmptyBatch) {
  const ConvCase c{{0, 3, 5, 5}, {4, 3, 3, 3}};
  const Tensor got =
      conv_op(c, Tensor::zeros({0, 3, 5, 5}, DType::kBF16), random_tensor(c.w, DType::kBF16, 1),
              random_tensor({4}, DType::kBF16, 2), false)
          .run()
          .at("Output")[0];
  EXPECT_EQ(got.type_str(), "bfloat16[0, 4, 5, 5]");
}

// ---- elementwise and relu

TEST(Bf16Elementwise, BinaryOpsWithBroadcast) {
  const std::vector<std::string> ops = {"add", "sub", "mul", "div", "max", "min"};
  const Tensor x = random_tensor({4, 33}, DType::kBF16, 1);
  for (const Shape& y_shape : {Shape{4, 33}, Shape{33}, Shape{1}}) {
    const Tensor y = random_tensor(y_shape, DType::kBF16, 2, 0.5, 2.0);
    for (const std::string& op : ops) {
      OpTest t("elementwise_" + op);
      t.input("X", x).input("Y", y);
      const Tensor got = t.run().at("Out")[0];
      EXPECT_EQ(got.dtype(), DType::kBF16);
      expect_close(got, widened("elementwise_" + op, {{"X", x}, {"Y", y}}).run().at("Out")[0], 1e-6,
                   kRtol, op + " with Y " + y_shape.str());
    }
  }
}

TEST(Bf16Elementwise, BinaryGradients) {
  for (const char* op : {"add", "sub", "mul", "div", "max", "min"}) {
    OpTest t(std::string("elementwise_") + op);
    t.input("X", random_tensor({5, 12}, DType::kBF16, 3))
        .input("Y", random_tensor({12}, DType::kBF16, 4, 0.5, 2.0));
    t.check_grad_in_dtype({"X", "Y"}, kAtol, kRtol);
  }
}

TEST(Bf16Relu, ExactOnTheBits) {
  const std::vector<uint16_t> in = {0x3f80, 0xbf80, 0x8000, 0x0000, 0x7fc0, 0xffc0,
                                    0x8001, 0x0001, 0xff80, 0x7f80, 0xc2f7};
  const std::vector<uint16_t> want = {0x3f80, 0x0000, 0x8000, 0x0000, 0x7fc0, 0xffc0,
                                      0x0000, 0x0001, 0x0000, 0x7f80, 0x0000};
  Tensor x = Tensor::empty({static_cast<int64_t>(in.size())}, DType::kBF16);
  for (size_t i = 0; i < in.size(); ++i) x.data<bfloat16>()[i] = bfloat16::from_bits(in[i]);
  OpTest t("relu");
  t.input("X", x);
  const Tensor got = t.run().at("Out")[0];
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(got.data<bfloat16>()[i].bits, want[i]) << "input bits 0x" << std::hex << in[i];
  OpTest grad("relu");
  grad.input("X", random_tensor({6, 40}, DType::kBF16, 9));
  grad.check_grad_in_dtype({"X"}, 0, 0);  // a copy of Out@GRAD or 0: exact
}

// ---- a small MLP: cast -> matmul -> add -> relu -> matmul (float32 out) -> mean

struct Mlp {
  Program program;
  std::string loss, y;
};

// x [8, 16] float32; w1 [16, 32], b1 [32], w2 [32, 4] of `dtype` (bfloat16: the second
// matmul gives float32; float64: all float64).
Mlp build_mlp(DType dtype) {
  Mlp m;
  BlockBuilder b(&m.program);
  const bool bf16 = dtype == DType::kBF16;
  std::string x = b.data("x", bf16 ? DType::kF32 : DType::kF64, {8, 16});
  const std::string w1 = b.persistable("w1", dtype, {16, 32}),
                    b1 = b.persistable("b1", dtype, {32});
  const std::string w2 = b.persistable("w2", dtype, {32, 4});
  if (bf16) x = b.apply("cast", {{"X", {x}}}, {{"out_dtype", std::string("bfloat16")}});
  std::string h = b.apply("matmul", {{"X", {x}}, {"Y", {w1}}});
  h = b.apply("relu", {{"X", {b.apply("elementwise_add", {{"X", {h}}, {"Y", {b1}}})}}});
  m.y = b.apply("matmul", {{"X", {h}}, {"Y", {w2}}},
                {{"out_dtype", std::string(bf16 ? "float32" : "")}});
  m.loss = b.apply("reduce_mean", {{"X", {m.y}}}, {{"reduce_all", true}});
  return m;
}

TEST(Bf16Mlp, ForwardAndBackwardFollowFloat64) {
  // bfloat16 parameters and input values; float64 runs the same values unrounded after.
  const Tensor x = random_tensor({8, 16}, DType::kBF16, 31);
  std::map<std::string, Tensor> params = {{"w1", random_tensor({16, 32}, DType::kBF16, 32)},
                                          {"b1", random_tensor({32}, DType::kBF16, 33)},
                                          {"w2", random_tensor({32, 4}, DType::kBF16, 34)}};
  std::map<std::string, Tensor> grads[2];
  Tensor outputs[2];
  for (int variant = 0; variant < 2; ++variant) {
    const bool bf16 = variant == 0;
    Mlp m = build_mlp(bf16 ? DType::kBF16 : DType::kF64);
    std::vector<std::string> grad_names;
    for (const auto& [param, grad] : append_backward(m.program, m.loss)) grad_names.push_back(grad);
    Scope scope;
    std::map<std::string, Tensor> feeds = {
        {"x", bf16 ? from_f64(to_f64(x), DType::kF32) : to_f64(x)}};
    for (const auto& [name, value] : params) feeds[name] = bf16 ? value : to_f64(value);
    std::vector<std::string> fetches = {m.y};
    fetches.insert(fetches.end(), grad_names.begin(), grad_names.end());
    const std::vector<Tensor> got = Executor().run(m.program, &scope, feeds, fetches);
    outputs[variant] = got[0];
    for (size_t i = 0; i < grad_names.size(); ++i) grads[variant][grad_names[i]] = got[i + 1];
  }
  EXPECT_EQ(outputs[0].dtype(), DType::kF32);
  // The hidden values are rounded twice (matmul, add) in bfloat16, and Out sums 32 of them:
  // its error is up to 2^-8 * sum_j |h_j| |w2_jk|, at most about 2^-7 of Out's largest
  // value here (measured: 0.021 of 5.2). Gradients go through one or two more roundings
  // (measured: 0.7% at most). No pre-activation of these values lies near enough to 0 for
  // the rounding to flip relu.
  double out_scale = 0;
  const Tensor want_out = to_f64(outputs[1]);
  for (int64_t i = 0; i < want_out.numel(); ++i)
    out_scale = std::max(out_scale, std::abs(want_out.data<double>()[i]));
  expect_close(outputs[0], outputs[1], out_scale / 128, 0, "MLP output");
  for (const auto& [name, want] : grads[1]) {
    ASSERT_TRUE(grads[0].count(name)) << name;
    EXPECT_EQ(grads[0][name].dtype(), DType::kBF16) << name;
    expect_close(grads[0][name], want, 2e-3, 1.0 / 64, "gradient " + name);
  }
}

}  // namespace
}  // namespace skiff
