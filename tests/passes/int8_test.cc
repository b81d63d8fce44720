// convert_to_int8 on a quantized Linear (fake-quantized input, int8 weights dequantized per
// column, matmul, bias add, relu): the program becomes quantize_linear + one
// quantized_matmul that computes the same values; what does not match stays float and is
// reported.
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

TEST(Int8Pass, WhatDoesNotMatchStaysFloatAndIsReported) {
  const Program p = quantized_linear(/*matmul=*/false);
  Int8Report report;
  const Program q = convert_to_int8(p, &report);
  EXPECT_EQ(report.converted, 0);
  EXPECT_EQ(types(q), types(p));
  ASSERT_EQ(report.left_float.size(), 1u);
  EXPECT_NE(report.left_float[0].find("op 'fake_quantize_dequantize'"), std::string::npos);
  EXPECT_NE(report.left_float[0].find("its reader is not a matmul of int8 weights"),
            std::string::npos)
      << report.left_float[0];
}

}  // namespace
}  // namespace skiff
