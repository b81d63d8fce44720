// fuse_conv_bias_relu: the program before and after, compared op by op, and both run on
// the same feeds; the cases it must leave alone.
#include "skiff/passes/fuse_conv.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/passes/pipeline.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/scope.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::random_tensor;
using Ints = std::vector<int64_t>;

// x [2, 3, 6, 6] -> conv2d(w [4, 3, 3, 3], pad 1) -> + b -> relu, with options to break
// the pattern.
struct NetOptions {
  DType dtype = DType::kF32;
  Shape bias_shape{4};
  int64_t axis = 1;
  bool relu = true;
};

struct Net {
  Program program;
  std::map<std::string, Tensor> feeds;
  OpDesc conv;  // the conv2d op as built
  std::string out;
};

Net conv_net(const NetOptions& o = {}) {
  Net net;
  BlockBuilder b(&net.program);
  const std::string x = b.data("x", o.dtype, {-1, 3, 6, 6});
  const std::string w = b.persistable("w", o.dtype, {4, 3, 3, 3});
  const std::string bias = b.persistable("b", o.dtype, o.bias_shape);
  net.conv = b.op("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {"y"}}},
                  {{"paddings", Ints{1, 1}}});
  b.op("elementwise_add", {{"X", {"y"}}, {"Y", {bias}}}, {{"Out", {"z"}}}, {{"axis", o.axis}});
  net.out = "z";
  if (o.relu) {
    b.op("relu", {{"X", {"z"}}}, {{"Out", {"out"}}});
    net.out = "out";
  }
  net.feeds = {{x, random_tensor({2, 3, 6, 6}, o.dtype, 1)},
               {w, random_tensor({4, 3, 3, 3}, o.dtype, 2)},
               {bias, random_tensor(o.bias_shape, o.dtype, 3)}};
  return net;
}

Tensor run_net(const Program& program, const std::map<std::string, Tensor>& feeds,
               const std::string& out) {
  Scope scope;
  return Executor().run(program, &scope, feeds, {out})[0];
}

// The op the pass should make from `conv`.
OpDesc fused_op(const OpDesc& conv, const std::string& bias, const std::string& out, bool relu) {
  OpDesc want = conv;
  want.set_input("Bias", {bias}).set_output("Output", {out}).set_attr("fuse_relu", relu);
  return want;
}

void expect_same_values(const Net& net, const Program& fused) {
  std::string why;
  EXPECT_TRUE(testing::all_close(run_net(fused, net.feeds, net.out),
                                 run_net(net.program, net.feeds, net.out), 1e-6, 1e-6, &why))
      << why;
}

TEST(FuseConvBiasRelu, ConvBiasReluBecomesOneConv) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    NetOptions o;
    o.dtype = dtype;
    const Net net = conv_net(o);
    const Program fused = fuse_conv_bias_relu(net.program);
    const Block& block = fused.global_block();
    ASSERT_EQ(block.ops.size(), 1u);
    EXPECT_EQ(block.ops[0], fused_op(net.conv, "b", "out", true));
    EXPECT_EQ(block.find_local_var("y"), nullptr);
    EXPECT_EQ(block.find_local_var("z"), nullptr);
    ASSERT_NE(block.find_local_var("out"), nullptr);
    expect_same_values(net, fused);
    EXPECT_EQ(net.program.global_block().ops.size(), 3u) << "the input program is not modified";
  }
}

TEST(FuseConvBiasRelu, ConvBiasWithoutRelu) {
  NetOptions o;
  o.relu = false;
  const Net net = conv_net(o);
  const Program fused = fuse_conv_bias_relu(net.program);
  ASSERT_EQ(fused.global_block().ops.size(), 1u);
  EXPECT_EQ(fused.global_block().ops[0], fused_op(net.conv, "b", "z", false));
  expect_same_values(net, fused);
}

TEST(FuseConvBiasRelu, BroadcastBiasOfShape1M11) {
  NetOptions o;
  o.bias_shape = {1, 4, 1, 1};
  o.axis = -1;
  const Net net = conv_net(o);
  const Program fused = fuse_conv_bias_relu(net.program);
  ASSERT_EQ(fused.global_block().ops.size(), 1u);
  EXPECT_EQ(fused.global_block().ops[0], fused_op(net.conv, "b", "out", true));
  expect_same_values(net, fused);
}

TEST(FuseConvBiasRelu, SumReadElsewhereKeepsTheRelu) {
  Net net = conv_net();
  BlockBuilder b(&net.program);
  b.op("tanh", {{"X", {"z"}}}, {{"Out", {"t"}}});
  const Program fused = fuse_conv_bias_relu(net.program);
  const Block& block = fused.global_block();
  ASSERT_EQ(block.ops.size(), 3u);
  EXPECT_EQ(block.ops[0], fused_op(net.conv, "b", "z", false));
  EXPECT_EQ(block.ops[1], net.program.global_block().ops[2]);  // relu
  EXPECT_EQ(block.ops[2], net.program.global_block().ops[3]);  // tanh
  expect_same_values(net, fused);
  std::string why;
  EXPECT_TRUE(testing::all_close(run_net(fused, net.feeds, "t"),
                                 run_net(net.program, net.feeds, "t"), 1e-6, 1e-6, &why))
      << why;
}

TEST(FuseConvBiasRelu, LeavesOtherPatternsAlone) {
  auto expect_unchanged = [](const Program& p, const char* why) {
    EXPECT_EQ(fuse_conv_bias_relu(p), p) << why;
  };
  NetOptions numpy_axis;
  numpy_axis.axis = -1;
  numpy_axis.bias_shape = {6};  // aligns with the width, not the channels
  expect_unchanged(conv_net(numpy_axis).program, "bias on the last axis");

  Net read_twice = conv_net();
  BlockBuilder(&read_twice.program).op("tanh", {{"X", {"y"}}}, {{"Out", {"t"}}});
  expect_unchanged(read_twice.program, "conv output read by another op");

  Net persistable = conv_net();
  persistable.program.global_block().find_local_var("y")->persistable = true;
  expect_unchanged(persistable.program, "persistable conv output");

  Net in_sub_block = conv_net();
  Block& sub = in_sub_block.program.add_block(0);
  sub.append_op("tanh").set_input("X", {"y"}).set_output("Out", {"t"});
  expect_unchanged(in_sub_block.program, "conv output read in a sub-block");

  Net overwritten = conv_net();
  std::vector<OpDesc>& ops = overwritten.program.global_block().ops;
  OpDesc scale("scale");
  scale.set_input("X", {"x"}).set_output("Out", {"x"}).set_attr("scale", 2.0);
  ops.insert(ops.begin() + 1, scale);
  expect_unchanged(overwritten.program, "conv input overwritten before the add");

  Net with_bias = conv_net();
  with_bias.program.global_block().ops[0].set_input("Bias", {"b"});
  expect_unchanged(with_bias.program, "conv2d already has a Bias");
}

TEST(FuseConvBiasRelu, TwoLayersInTheInferencePipeline) {
  Net net = conv_net();
  BlockBuilder b(&net.program);
  const std::string w2 = b.persistable("w2", DType::kF32, {5, 4, 3, 3});
  const std::string b2 = b.persistable("b2", DType::kF32, {5});
  const OpDesc conv2 = b.op("conv2d", {{"Input", {"out"}}, {"Filter", {w2}}}, {{"Output", {"y2"}}},
                            {{"strides", Ints{2, 2}}});
  b.op("elementwise_add", {{"X", {"y2"}}, {"Y", {b2}}}, {{"Out", {"z2"}}}, {{"axis", int64_t{1}}});
  b.op("relu", {{"X", {"z2"}}}, {{"Out", {"out2"}}});
  net.feeds[w2] = random_tensor({5, 4, 3, 3}, DType::kF32, 4);
  net.feeds[b2] = random_tensor({5}, DType::kF32, 5);
  net.out = "out2";

  const Program fused = run_pipeline(net.program, inference_pipeline());
  const Block& block = fused.global_block();
  ASSERT_EQ(block.ops.size(), 2u);
  EXPECT_EQ(block.ops[0], fused_op(net.conv, "b", "out", true));
  EXPECT_EQ(block.ops[1], fused_op(conv2, b2, "out2", true));
  expect_same_values(net, fused);
}

}  // namespace
}  // namespace skiff
