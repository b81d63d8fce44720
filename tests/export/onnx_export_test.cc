// ONNX export (skiff/export/onnx/): the nodes each kind of op maps to, SSA naming of
// in-place writes, while -> Loop and if/else -> one If, opset-dependent forms, and the
// errors (unmapped op with its source line, missing parameter, bad options). Values
// are checked against ONNX Runtime by tests/python/onnx/.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "skiff/api/builder.h"
#include "skiff/export/onnx/onnx_export.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/file_io.h"
#include "skiff/ir/serialize.h"
#include "skiff/ops/registry.h"
#include "tests/testing/op_test.h"
#include "tests/testing/programs.h"

namespace skiff::testing {
namespace {

std::string model_text(const Program& p, const NamedTensors& params, int opset = 17) {
  OnnxExportOptions options;
  options.opset = opset;
  return onnx_model_to_text(export_onnx(p, params, options));
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// True when no two nodes of the model (sub-graphs included) write the same value.
bool single_assignment(const std::string& text) {
  const std::regex output(R"re(\boutput: "([^"]*)")re");
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), output);
       it != std::sregex_iterator(); ++it)
    if (!seen.insert((*it)[1].str()).second) return false;
  return !seen.empty();
}

void set_param(NamedTensors& s, const std::string& name, const Shape& shape, float value = 0.5f) {
  s.emplace_back(name, Tensor::from_vector<float>(
                           shape, std::vector<float>(static_cast<size_t>(shape.numel()), value)));
}

// y = relu(x · w + b), then y *= 2 in place: x [-1, 4], w [4, 3], b [3].
Program mlp(NamedTensors* params) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{-1, 4});
  b.persistable("w", DType::kF32, Shape{4, 3});
  b.persistable("b", DType::kF32, Shape{3});
  const std::string h = add(b, matmul(b, x, "w"), "b");
  b.op("relu", {{"X", {h}}}, {{"Out", {"y"}}});
  b.op("scale", {{"X", {"y"}}}, {{"Out", {"y"}}}, {{"scale", 2.0}});
  p.feed_names = {x};
  p.fetch_names = {"y"};
  set_param(*params, "w", Shape{4, 3});
  set_param(*params, "b", Shape{3});
  return p;
}

TEST(OnnxExportTest, MlpMapsToGemmAndRelu) {
  NamedTensors params;
  const std::string text = model_text(mlp(&params), params);
  EXPECT_EQ(count(text, "op_type: \"Gemm\""), 1);  // with the bias as its C input
  EXPECT_EQ(count(text, "op_type: \"Add\""), 0);
  EXPECT_EQ(count(text, "op_type: \"Relu\""), 1);
  EXPECT_EQ(count(text, "op_type: \"Mul\""), 1);  // scale 2
  EXPECT_NE(text.find("ir_version: 8"), std::string::npos);
  EXPECT_NE(text.find("dim_param: \"x_dim0\""), std::string::npos);  // the unknown batch
  EXPECT_EQ(count(text, "initializer {"), 3);                        // w, b and the factor
  // The in-place scale writes a new value; the last write of y is named y.
  EXPECT_TRUE(single_assignment(text)) << text;
  EXPECT_NE(text.find("output: \"y\""), std::string::npos);
}

TEST(OnnxExportTest, PaddleAxisBroadcastPutsTheSmallOperandAtTheAxis) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{2, 3, 4});
  const std::string y = b.data("y", DType::kF32, Shape{3});
  const std::string out =
      b.apply("elementwise_mul", {{"X", {x}}, {"Y", {y}}}, {{"axis", int64_t{1}}});
  p.feed_names = {x, y};
  p.fetch_names = {out};
  const std::string text = model_text(p, NamedTensors{});
  // y [3] gets a trailing dim (axes [1]): [3, 1] lines up with dim 1 of [2, 3, 4].
  EXPECT_EQ(count(text, "op_type: \"Unsqueeze\""), 1);
  EXPECT_NE(text.find("dims: 1\n    data_type: 7\n    int64_data: 1\n"), std::string::npos) << text;
}

// An elementwise op's fused activation is a node after the op's.
TEST(OnnxExportTest, AFusedActivationFollowsItsElementwiseNode) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{2, 3});
  const std::string out = b.apply("elementwise_sub", {{"X", {x}}, {"Y", {x}}},
                                  {{"fuse_activation", std::string("sigmoid")}});
  p.feed_names = {x};
  p.fetch_names = {out};
  const std::string text = model_text(p, NamedTensors{});
  EXPECT_EQ(count(text, "op_type: \"Sub\""), 1);
  EXPECT_EQ(count(text, "op_type: \"Sigmoid\""), 1);
  EXPECT_LT(text.find("op_type: \"Sub\""), text.find("op_type: \"Sigmoid\""));
  EXPECT_TRUE(single_assignment(text)) << text;
  EXPECT_NE(text.find("output: \"" + out + "\""), std::string::npos);
}

TEST(OnnxExportTest, UnsqueezeAxesBecomeFinalPositions) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{5, 6});
  // Inserted one after another: at 2 -> [5, 6, 1], then at 0 -> [1, 5, 6, 1].
  const std::string out =
      b.apply("unsqueeze", {{"X", {x}}}, {{"axes", std::vector<int64_t>{2, 0}}});
  p.feed_names = {x};
  p.fetch_names = {out};
  const std::string text = model_text(p, NamedTensors{});
  EXPECT_NE(text.find("int64_data: 0\n    int64_data: 3"), std::string::npos) << text;
}

TEST(OnnxExportTest, WhileBecomesLoopWithTheWrittenVariablesCarried) {
  Program p;
  NamedTensors params;
  BlockBuilder b(&p);
  b.persistable("w", DType::kF32, Shape{3, 3});
  set_param(params, "w", Shape{3, 3}, 0.1f);
  const std::string x = b.data("x", DType::kF32, Shape{1, 3});
  const std::string h = b.apply("assign", {{"X", {x}}});
  const std::string i = constant(b, 0), n = constant(b, 5);
  const std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.op("tanh", {{"X", {matmul(body, h, "w")}}}, {{"Out", {h}}});
    step_counter(body, i, n, cond);
  });
  p.feed_names = {x};
  p.fetch_names = {h, i};
  const std::string text = model_text(p, params);
  EXPECT_EQ(count(text, "op_type: \"Loop\""), 1);
  EXPECT_EQ(count(text, "name: \"body\""), 1);
  EXPECT_EQ(count(text, "op_type: \"Tanh\""), 1);
  EXPECT_TRUE(single_assignment(text)) << text;
  // Both fetches come out of the Loop under their own names.
  EXPECT_NE(text.find("output: \"" + h + "\""), std::string::npos);
  EXPECT_NE(text.find("output: \"" + i + "\""), std::string::npos);
}

TEST(OnnxExportTest, IfElseBecomesOneIf) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{-1, 3});
  const std::string total = b.apply("reduce_sum", {{"X", {x}}});
  const std::string zero =
      b.apply("fill_constant", {}, {{"shape", std::vector<int64_t>{}}, {"value", 0.0}});
  const std::string pred = b.apply("greater_than", {{"X", {total}}, {"Y", {zero}}});
  const std::vector<std::string> outs = b.if_else(
      pred, [&](BlockBuilder& t) { return std::vector<std::string>{unary(t, "tanh", x)}; },
      [&](BlockBuilder& f) { return std::vector<std::string>{unary(f, "relu", x)}; });
  p.feed_names = {x};
  p.fetch_names = {outs[0]};
  const std::string text = model_text(p, NamedTensors{});
  EXPECT_EQ(count(text, "op_type: \"If\""), 1) << text;
  EXPECT_EQ(count(text, "op_type: \"Not\""), 0);  // the negation only fed the else block
  EXPECT_TRUE(single_assignment(text)) << text;
}

TEST(OnnxExportTest, AxesFollowTheOpset) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{2, 5});
  const std::string m = b.apply("reduce_mean", {{"X", {x}}}, {{"dim", std::vector<int64_t>{1}}});
  p.feed_names = {x};
  p.fetch_names = {m};
  // Opset 17 gives ReduceMean its axes as an attribute, 18 as an input.
  EXPECT_EQ(count(model_text(p, NamedTensors{}, 17), "name: \"axes\""), 1);
  EXPECT_EQ(count(model_text(p, NamedTensors{}, 18), "name: \"axes\""), 0);
}

TEST(OnnxExportTest, LayerNormBeforeOpset17IsWrittenOut) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{-1, 4, 6});
  b.persistable("scale", DType::kF32, Shape{24});
  NamedTensors params;
  set_param(params, "scale", Shape{24}, 1.5f);
  const std::string y = "ln_y";
  b.op("layer_norm", {{"X", {x}}, {"Scale", {"scale"}}},
       {{"Y", {y}}, {"Mean", {b.unique_name("mean")}}, {"Variance", {b.unique_name("var")}}},
       {{"begin_norm_axis", int64_t{1}}});
  p.feed_names = {x};
  p.fetch_names = {y};
  const std::string at17 = model_text(p, params, 17);
  EXPECT_EQ(count(at17, "op_type: \"LayerNormalization\""), 1);
  EXPECT_EQ(count(at17, "op_type: \"Reshape\""), 1);  // Scale [24] shaped [4, 6]
  const std::string at13 = model_text(p, params, 13);
  EXPECT_EQ(count(at13, "op_type: \"LayerNormalization\""), 0);
  EXPECT_EQ(count(at13, "op_type: \"ReduceMean\""), 2);
  EXPECT_EQ(count(at13, "op_type: \"Sqrt\""), 1);
}

TEST(OnnxExportTest, LstmCellIsWrittenAsGates) {
  Program p;
  BlockBuilder b(&p);
  const std::string gx = b.data("gates_x", DType::kF32, Shape{2, 8});
  const std::string h = b.data("h", DType::kF32, Shape{2, 2});
  const std::string c = b.data("c", DType::kF32, Shape{2, 2});
  b.persistable("w_hh", DType::kF32, Shape{2, 8});
  NamedTensors params;
  set_param(params, "w_hh", Shape{2, 8});
  b.op("lstm_cell", {{"Gates_x", {gx}}, {"H", {h}}, {"Weight_hh", {"w_hh"}}, {"C", {c}}},
       {{"H_out", {"h_out"}}, {"C_out", {"c_out"}}});
  p.feed_names = {gx, h, c};
  p.fetch_names = {"h_out", "c_out"};
  const std::string text = model_text(p, params, 18);
  EXPECT_EQ(count(text, "op_type: \"Split\""), 1);
  EXPECT_NE(text.find("name: \"num_outputs\"\n      i: 4"), std::string::npos) << text;
  EXPECT_EQ(count(text, "op_type: \"Sigmoid\""), 3);
  EXPECT_EQ(count(text, "op_type: \"Tanh\""), 2);
}

TEST(OnnxExportTest, AnOpWithoutMappingNamesItsTypeAndLine) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{2, 3});
  const int line = __LINE__ + 1;
  const std::string out = b.apply("uniform_random", {}, {{"shape", std::vector<int64_t>{2, 3}}});
  p.feed_names = {x};
  p.fetch_names = {out};
  const std::string message = error_of([&] { export_onnx(p, NamedTensors{}); });
  EXPECT_NE(message.find("op 'uniform_random'"), std::string::npos) << message;
  EXPECT_NE(message.find("onnx_export_test.cc:" + std::to_string(line)), std::string::npos)
      << message;
  EXPECT_NE(message.find("no ONNX mapping"), std::string::npos) << message;
}

TEST(OnnxExportTest, InsideALoopTheErrorNamesTheInnerOp) {
  Program p;
  BlockBuilder b(&p);
  const std::string x = b.data("x", DType::kF32, Shape{2, 3});
  const std::string i = constant(b, 0), n = constant(b, 3);
  const std::string cond = less_than(b, i, n);
  b.while_loop(cond, [&](BlockBuilder& body) {
    body.op("uniform_random", {}, {{"Out", {x}}}, {{"shape", std::vector<int64_t>{2, 3}}});
    step_counter(body, i, n, cond);
  });
  p.feed_names = {x};
  p.fetch_names = {i};
  const std::string message = error_of([&] { export_onnx(p, NamedTensors{}); });
  EXPECT_NE(message.find("op 'uniform_random'"), std::string::npos) << message;
  EXPECT_EQ(message.find("op 'while'"), std::string::npos) << message;
}

TEST(OnnxExportTest, BadInputsAreErrors) {
  NamedTensors params;
  Program p = mlp(&params);
  EXPECT_NE(error_of([&] { export_onnx(p, NamedTensors{}); }).find("parameter 'w' has no value"),
            std::string::npos);
  OnnxExportOptions old;
  old.opset = 9;
  EXPECT_NE(error_of([&] { export_onnx(p, params, old); }).find("opset 9 is not supported"),
            std::string::npos);
  OnnxExportOptions names;
  names.input_names = {"a", "b"};
  EXPECT_NE(error_of([&] { export_onnx(p, params, names); }).find("2 input names for 1 feeds"),
            std::string::npos);
  p.fetch_names.clear();
  EXPECT_NE(error_of([&] { export_onnx(p, params); }).find("names no fetch targets"),
            std::string::npos);
  EXPECT_NE(error_of([] { onnx_model_to_text("not a model"); }), "");
}

TEST(OnnxExportTest, InputsCanBeRenamed) {
  NamedTensors params;
  OnnxExportOptions options;
  options.input_names = {"features"};
  const std::string text = onnx_model_to_text(export_onnx(mlp(&params), params, options));
  EXPECT_NE(text.find("input: \"features\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"x\""), std::string::npos);
}

TEST(OnnxExportTest, FileExportReadsTheParametersBesideTheModel) {
  NamedTensors params;
  const Program p = mlp(&params);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("skiff_onnx_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  save_program(p, (dir / "m.skmodel").string());
  save_params((dir / "m.skparams").string(), params);
  export_onnx_file((dir / "m.skmodel").string(), (dir / "m.onnx").string());
  const std::string text = onnx_model_to_text(read_file((dir / "m.onnx").string()));
  EXPECT_NE(text.find("name: \"w\""), std::string::npos);
  std::filesystem::remove(dir / "m.skparams");
  EXPECT_NE(
      error_of([&] { export_onnx_file((dir / "m.skmodel").string(), (dir / "m2.onnx").string()); }),
      "");
  std::filesystem::remove_all(dir);
}

TEST(OnnxExportTest, EveryMappedOpIsARegisteredOp) {
  const std::vector<std::string> ops = onnx_exportable_ops();
  for (const std::string& type : ops) EXPECT_NE(find_op_schema(type), nullptr) << type;
  for (const char* type : {"matmul", "conv2d", "pool2d", "batch_norm", "layer_norm", "while",
                           "conditional_block", "select_input", "lstm_cell", "gru_cell",
                           "embedding", "write_to_array", "softmax", "reduce_mean"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), type), ops.end()) << type;
}

}  // namespace
}  // namespace skiff::testing
