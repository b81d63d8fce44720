// convert_to_int8 on a quantized Linear (fake-quantized input, int8 weights dequantized per
// column, matmul, bias add, relu): the program becomes quantize_linear + one
// quantized_matmul that computes the same values; two quantized convolutions in a row
// become quantize_linear + quantized_conv2d giving int8 (requantized) to the next
// quantized_conv2d; what does not match stays float and is reported.
#include "skiff/passes/int8.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::random_tensor;

// x [4, 6] -> fake quant -> matmul with dequantized w [6, 3] -> + b -> relu; without the
// matmul, the fake-quantized x goes to a tanh instead.
Program quantized_linear(bool matmul = true) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {4, 6});
  b.data("s_x", DType::kF32, {1});
  b.data("w", DType::kI8, {6, 3});
  b.data("s_w", DType::kF32, {3});
  b.data("bias", DType::kF32, {3});
  const std::string xf = b.apply("fake_quantize_dequantize", {{"X", {"x"}}, {"Scale", {"s_x"}}});
  if (!matmul) {
    p.fetch_names = {b.apply("tanh", {{"X", {xf}}})};
    return p;
  }
  const std::string wf = "wf";
  b.op("dequantize_linear", {{"X", {"w"}}, {"Scale", {"s_w"}}}, {{"Y", {wf}}},
       {{"quant_axis", int64_t{1}}});
  const std::string y = b.apply("matmul", {{"X", {xf}}, {"Y", {wf}}});
  const std::string z = b.apply("elementwise_add", {{"X", {y}}, {"Y", {"bias"}}});
  p.fetch_names = {b.apply("relu", {{"X", {z}}})};
  return p;
}

std::map<std::string, Tensor> feeds() {
  return {{"x", random_tensor({4, 6}, DType::kF32, 1, -2, 2)},
          {"s_x", Tensor::from_vector<float>({1}, {2.0f / 127})},
          {"w", random_tensor({6, 3}, DType::kI8, 2, -128, 128)},
          {"s_w", Tensor::from_vector<float>({3}, {0.01f, 0.02f, 0.005f})},
          {"bias", Tensor::from_vector<float>({3}, {0.5f, -3.0f, 0.25f})}};
}

std::vector<std::string> types(const Program& p) {
  std::vector<std::string> out;
  for (const OpDesc& op : p.block(0).ops) out.push_back(op.type);
  return out;
}

TEST(Int8Pass, AQuantizedLinearBecomesOneInt8Matmul) {
  const Program p = quantized_linear();
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 1);
  EXPECT_TRUE(report.left_float.empty());
  EXPECT_EQ(types(q), (std::vector<std::string>{"quantize_linear", "quantized_matmul"}));
  EXPECT_TRUE(q.block(0).ops[1].attr<bool>("fuse_relu"));
  EXPECT_EQ(q.block(0).ops[1].first_input("Bias"), "bias");
  Scope a, b;
  const Tensor want = Executor().run(p, &a, feeds(), p.fetch_names)[0];
  const Tensor got = Executor().run(q, &b, feeds(), q.fetch_names)[0];
  const std::vector<float> w = want.to_vector<float>(), g = got.to_vector<float>();
  ASSERT_EQ(w.size(), g.size());
  int positive = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_NEAR(g[i], w[i], 1e-5f * (1 + std::abs(w[i]))) << i;
    positive += w[i] > 0;
  }
  EXPECT_GT(positive, 0);  // the relu did not zero everything
  EXPECT_LT(positive, static_cast<int>(w.size()));
}

// x [2, 3, 6, 6] -> fake quant -> conv2d (3 -> 8, 3x3, pad 1, Bias) -> relu [-> max pool
// 2x2] -> fake quant -> conv2d (8 -> 4, 3x3, stride 2, no bias).
Program quantized_convs(bool pool = false) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {2, 3, 6, 6});
  for (const char* s : {"s_x", "s_h"}) b.data(s, DType::kF32, {1});
  b.data("w1", DType::kI8, {8, 3, 3, 3});
  b.data("s_w1", DType::kF32, {8});
  b.data("b1", DType::kF32, {8});
  b.data("w2", DType::kI8, {4, 8, 3, 3});
  b.data("s_w2", DType::kF32, {1});
  auto conv = [&](const std::string& in, const std::string& scale, const std::string& w,
                  const std::string& ws, const std::string& bias, int64_t stride) {
    const std::string xf = b.apply("fake_quantize_dequantize", {{"X", {in}}, {"Scale", {scale}}});
    const std::string wf = b.unique_name("wf"), y = b.unique_name("y");
    b.op("dequantize_linear", {{"X", {w}}, {"Scale", {ws}}}, {{"Y", {wf}}});
    std::vector<Slot> ins = {{"Input", {xf}}, {"Filter", {wf}}};
    if (!bias.empty()) ins.push_back({"Bias", {bias}});
    b.op("conv2d", ins, {{"Output", {y}}},
         {{"strides", std::vector<int64_t>{stride, stride}},
          {"paddings", std::vector<int64_t>{1, 1}}});
    return y;
  };
  std::string h = b.apply("relu", {{"X", {conv("x", "s_x", "w1", "s_w1", "b1", 1)}}});
  if (pool) {
    h = b.apply("pool2d", {{"X", {h}}},
                {{"pooling_type", std::string("max")},
                 {"ksize", std::vector<int64_t>{2, 2}},
                 {"strides", std::vector<int64_t>{2, 2}}});
  }
  p.fetch_names = {conv(h, "s_h", "w2", "s_w2", "", 2)};
  return p;
}

// Runs p and q on the same feeds; their outputs agree (float sums against int32 ones).
void expect_same_values(const Program& p, const Program& q) {
  std::map<std::string, Tensor> in = {
      {"x", random_tensor({2, 3, 6, 6}, DType::kF32, 1, -2, 2)},
      {"s_x", Tensor::from_vector<float>({1}, {2.0f / 127})},
      {"s_h", Tensor::from_vector<float>({1}, {3.0f / 127})},
      {"w1", random_tensor({8, 3, 3, 3}, DType::kI8, 2, -128, 128)},
      {"s_w1", Tensor::from_vector<float>(
                   {8}, {0.01f, 0.002f, 0.003f, 0.004f, 0.005f, 0.006f, 0.007f, 0.008f})},
      {"b1", random_tensor({8}, DType::kF32, 3, -0.5, 0.5)},
      {"w2", random_tensor({4, 8, 3, 3}, DType::kI8, 4, -128, 128)},
      {"s_w2", Tensor::from_vector<float>({1}, {0.004f})}};
  Scope a, b;
  const std::vector<float> want = Executor().run(p, &a, in, p.fetch_names)[0].to_vector<float>();
  const std::vector<float> got = Executor().run(q, &b, in, q.fetch_names)[0].to_vector<float>();
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::abs(want[i]))) << i;
}

TEST(Int8Pass, QuantizedConvolutionsPassInt8FromOneToTheNext) {
  const Program p = quantized_convs();
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 2);
  EXPECT_EQ(report.requantized, 1);
  EXPECT_TRUE(report.left_float.empty());
  EXPECT_EQ(types(q),
            (std::vector<std::string>{"quantize_linear", "quantized_conv2d", "quantized_conv2d"}));
  const OpDesc& first = q.block(0).ops[1];
  EXPECT_TRUE(first.attr<bool>("fuse_relu"));
  EXPECT_EQ(first.first_input("Bias"), "b1");
  EXPECT_EQ(first.first_input("OutScale"), "s_h");
  EXPECT_EQ(q.block(0).ops[2].attr<std::vector<int64_t>>("strides"), (std::vector<int64_t>{2, 2}));
  expect_same_values(p, q);
}

TEST(Int8Pass, MaxPoolingBetweenRunsOnInt8) {
  const Program p = quantized_convs(/*pool=*/true);
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 2);
  EXPECT_EQ(report.requantized, 1);
  // The pooling is folded into the convolution before it, which pools its sums.
  EXPECT_EQ(types(q),
            (std::vector<std::string>{"quantize_linear", "quantized_conv2d", "quantized_conv2d"}));
  const OpDesc& first = q.block(0).ops[1];
  EXPECT_TRUE(first.attr<bool>("fuse_max_pool_2x2"));
  EXPECT_EQ(q.find_var(0, first.first_output("Output"))->dtype, DType::kI8);
  EXPECT_EQ(first.first_output("Output"), q.block(0).ops[2].first_input("Input"));
  expect_same_values(p, q);
}

// The argmax indices max pooling makes for its gradient go when nothing reads them (and
// the pooling is folded), and stay when something does (here a fetch): the pooling then
// runs on int8 by itself.
TEST(Int8Pass, AnUnreadPoolingMaskIsDropped) {
  for (const bool fetched : {false, true}) {
    Program p = quantized_convs(/*pool=*/true);
    for (OpDesc& op : p.block(0).ops) {
      if (op.type != "pool2d") continue;
      op.set_output("Mask", {"pool_mask"});
      p.block(0).add_var(VarDesc("pool_mask", DType::kI32, Shape{-1, 8, 3, 3}));
    }
    if (fetched) p.fetch_names.push_back("pool_mask");
    const Program q = convert_to_int8(p, nullptr);
    if (fetched) {
      EXPECT_EQ(types(q), (std::vector<std::string>{"quantize_linear", "quantized_conv2d", "pool2d",
                                                    "quantized_conv2d"}));
      const OpDesc& pool = q.block(0).ops[2];
      EXPECT_EQ(pool.first_output("Mask"), "pool_mask");
      EXPECT_EQ(q.find_var(0, pool.first_input("X"))->dtype, DType::kI8);
      EXPECT_EQ(q.find_var(0, pool.first_output("Out"))->dtype, DType::kI8);
    } else {
      EXPECT_TRUE(q.block(0).ops[1].attr<bool>("fuse_max_pool_2x2"));
    }
    expect_same_values(p, q);
  }
}

TEST(Int8Pass, AFetchedIntermediateIsNotFoldedAway) {
  Program p = quantized_convs();
  // The first convolution's relu is fetched too: it stays a float output.
  const std::string relu_out = p.block(0).ops[3].first_output("Out");
  ASSERT_EQ(p.block(0).ops[3].type, "relu");
  p.fetch_names.push_back(relu_out);
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 2);
  EXPECT_EQ(report.requantized, 0);
  EXPECT_TRUE(q.block(0).ops[1].first_input("OutScale").empty());
}

TEST(Int8Pass, WhatDoesNotMatchStaysFloatAndIsReported) {
  const Program p = quantized_linear(/*matmul=*/false);
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 0);
  EXPECT_EQ(types(q), types(p));
  ASSERT_EQ(report.left_float.size(), 1u);
  EXPECT_NE(report.left_float[0].find("op 'fake_quantize_dequantize'"), std::string::npos);
  EXPECT_NE(report.left_float[0].find("its reader is not a matmul or conv2d of int8 weights"),
            std::string::npos)
      << report.left_float[0];
}

}  // namespace
}  // namespace skiff
