// Programs the codegen tests compile: an MLP, W1's while loop, an if/else and a CNN, each
// with fixed parameter values, plus the inputs they are run on.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "tests/codegen/codegen_testing.h"

namespace skiff::testing {

// offset + scale * sin(0.37 i + phase) over the flat index: fixed, varied values.
inline Tensor wave(const Shape& shape, DType dtype, double scale, double phase, double offset = 0) {
  Tensor t = Tensor::empty(shape, DType::kF64);
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i)
    p[i] = offset + scale * std::sin(0.37 * static_cast<double>(i) + phase);
  if (dtype == DType::kF64) return t;
  Tensor f = Tensor::empty(shape, DType::kF32);
  for (int64_t i = 0; i < t.numel(); ++i) f.data<float>()[i] = static_cast<float>(p[i]);
  return f;
}

// x W + b with W [in, out] named <prefix>_w and b [out] named <prefix>_b.
inline std::string fc_layer(BlockBuilder& b, ModelWithParams* m, const std::string& x,
                            const std::string& prefix, int64_t in, int64_t out, DType dtype) {
  const std::string w = b.persistable(prefix + "_w", dtype, {in, out});
  const std::string bias = b.persistable(prefix + "_b", dtype, {out});
  m->params.push_back({w, wave({in, out}, dtype, 1.0 / std::sqrt(double(in)), 0.3 + in)});
  m->params.push_back({bias, wave({out}, dtype, 0.1, 1.7 + out)});
  const std::string z = b.apply("matmul", {{"X", {x}}, {"Y", {w}}});
  return b.apply("elementwise_add", {{"X", {z}}, {"Y", {bias}}});
}

// x [-1, 8] -> fc 16 -> relu -> fc 4 -> softmax; feeds x, fetches the probabilities.
inline ModelWithParams mlp_model(DType dtype = DType::kF32) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", dtype, {-1, 8});
  std::string h = b.apply("relu", {{"X", {fc_layer(b, &m, "x", "fc0", 8, 16, dtype)}}});
  std::string logits = fc_layer(b, &m, h, "fc1", 16, 4, dtype);
  std::string probs = b.apply("softmax", {{"X", {logits}}}, {{"axis", int64_t{-1}}});
  m.program.feed_names = {"x"};
  m.program.fetch_names = {probs};
  return m;
}

// W1: h = tanh(x W + h) for `steps` steps in a while op; x and W are parameters.
inline ModelWithParams w1_model(int64_t steps) {
  using Ints = std::vector<int64_t>;
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.persistable("x", DType::kF32, {1, 16});
  b.persistable("W", DType::kF32, {16, 16});
  m.params.push_back({"x", wave({1, 16}, DType::kF32, 0.5, 0.3)});
  m.params.push_back({"W", wave({16, 16}, DType::kF32, 0.25, 0.1)});
  b.op("fill_constant", {}, {{"Out", {"h"}}},
       {{"shape", Ints{1, 16}}, {"value", 0.0}, {"dtype", std::string("float32")}});
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"steps"}}},
       {{"shape", Ints{1}}, {"value", double(steps)}, {"dtype", std::string("int64")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [](BlockBuilder& body) {
    std::string xw = body.apply("matmul", {{"X", {"x"}}, {"Y", {"W"}}});
    std::string pre = body.apply("elementwise_add", {{"X", {xw}}, {"Y", {"h"}}});
    body.assign(body.apply("tanh", {{"X", {pre}}}), "h");
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  });
  m.program.fetch_names = {"h"};
  return m;
}

// y = sum(x) > 0 ? 2 tanh(x) : relu(x) - 1, x [2, 3].
inline ModelWithParams if_else_model() {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {2, 3});
  std::string total = b.apply("reduce_sum", {{"X", {"x"}}}, {{"reduce_all", true}});
  std::string zero = b.apply(
      "fill_constant", {},
      {{"shape", std::vector<int64_t>{1}}, {"value", 0.0}, {"dtype", std::string("float32")}});
  std::string pred = b.apply("greater_than", {{"X", {total}}, {"Y", {zero}}});
  std::vector<std::string> outs = b.if_else(
      pred,
      [](BlockBuilder& t) {
        std::string th = t.apply("tanh", {{"X", {"x"}}});
        return std::vector<std::string>{t.apply("scale", {{"X", {th}}}, {{"scale", 2.0}})};
      },
      [](BlockBuilder& f) {
        std::string r = f.apply("relu", {{"X", {"x"}}});
        return std::vector<std::string>{
            f.apply("scale", {{"X", {r}}}, {{"scale", 1.0}, {"bias", -1.0}})};
      });
  m.program.feed_names = {"x"};
  m.program.fetch_names = {outs[0]};
  return m;
}

// x [-1, 1, 8, 8] -> conv3x3(1->4, pad 1) + bias -> relu -> maxpool 2 -> flatten -> fc 3.
inline ModelWithParams cnn_model() {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {-1, 1, 8, 8});
  b.persistable("conv_w", DType::kF32, {4, 1, 3, 3});
  b.persistable("conv_b", DType::kF32, {4});
  m.params.push_back({"conv_w", wave({4, 1, 3, 3}, DType::kF32, 0.4, 0.2)});
  m.params.push_back({"conv_b", wave({4}, DType::kF32, 0.1, 0.9)});
  std::string conv = b.unique_name("conv");
  b.op("conv2d", {{"Input", {"x"}}, {"Filter", {"conv_w"}}, {"Bias", {"conv_b"}}},
       {{"Output", {conv}}},
       {{"strides", std::vector<int64_t>{1, 1}}, {"paddings", std::vector<int64_t>{1, 1}}});
  std::string act = b.apply("relu", {{"X", {conv}}});
  std::string pool = b.apply("pool2d", {{"X", {act}}},
                             {{"pooling_type", std::string("max")},
                              {"ksize", std::vector<int64_t>{2, 2}},
                              {"strides", std::vector<int64_t>{2, 2}}});
  std::string flat = b.apply("flatten", {{"X", {pool}}}, {{"start_axis", int64_t{1}}});
  std::string logits = fc_layer(b, &m, flat, "fc", 64, 3, DType::kF32);
  m.program.feed_names = {"x"};
  m.program.fetch_names = {logits};
  return m;
}

}  // namespace skiff::testing
