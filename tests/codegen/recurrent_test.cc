// Recurrent programs compiled: a 2-layer LSTM stack and a GRU built by api/rnn.h (lstm /
// gru layer ops, which the compiled model runs through their kernels) give the
// interpreter's outputs within 1e-6, the LSTM also on the portable target; tensor arrays
// (TensorArray fields of Vars): a list grown in a loop and read back whole (array_length,
// tensor_array_to_tensor), select_input picking one of two arrays. An array where a rule
// takes a dense tensor is an error naming the op.
#include "skiff/api/rnn.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

using Ints = std::vector<int64_t>;

codegen::CompiledModel compile(const ModelWithParams& m, const std::string& dir,
                               const std::string& target = "x86-64") {
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.target = target;
  o.jobs = 2;
  return codegen::compile_model_file(save_model(m, dir), o);
}

void expect_same(const std::map<std::string, Tensor>& got,
                 const std::map<std::string, Tensor>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, value] : want) {
    std::string why;
    EXPECT_TRUE(all_close(got.at(name), value, tol, tol, &why)) << name << ": " << why;
  }
}

// x [T, B, I] fed -> a stack of `layers` LSTM (or GRU) layers, hidden `hidden`; fetches
// the outputs and each layer's final h. Parameters: the startup program's values.
ModelWithParams rnn_model(bool lstm, int64_t steps, int64_t batch, int64_t input, int64_t hidden,
                          int layers) {
  ModelWithParams m;
  Program startup;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {steps, batch, input});
  RnnOptions o;
  o.hidden = hidden;
  o.num_layers = layers;
  o.seed = 11;
  const RnnResult r = lstm ? lstm_layer(b, "x", o, &startup) : gru_layer(b, "x", o, &startup);
  Scope scope;
  Executor exe;
  exe.run(startup, &scope);
  for (const std::string& p : r.parameters)
    m.params.push_back({p, scope.find_var(p)->tensor()->clone()});
  m.program.feed_names = {"x"};
  m.program.fetch_names = {r.outputs};
  for (const std::string& h : r.final_h) m.program.fetch_names.push_back(h);
  return m;
}

void expect_rnn_matches(const ModelWithParams& m, const Shape& x_shape,
                        const std::string& target = "x86-64") {
  const codegen::CompiledModel c = compile(m, scratch_dir(), target);
  // Each layer is one call of its kernel over all the steps.
  EXPECT_NE(c.generated.model_cc.find("_layer(kernels::"), std::string::npos);
  const Tensor x = wave(x_shape, DType::kF32, 0.9, 0.4);
  const std::vector<std::string>& outs = m.program.fetch_names;
  expect_same(run_executable(c.executable, {{"x", x}}, outs), interpret(m, {{"x", x}}, outs), 1e-6);
}

TEST(RecurrentTest, LstmStackMatchesInterpreter) {
  expect_rnn_matches(rnn_model(true, 7, 3, 5, 6, 2), {7, 3, 5});
}

TEST(RecurrentTest, GruMatchesInterpreter) {
  expect_rnn_matches(rnn_model(false, 6, 2, 4, 5, 1), {6, 2, 4});
}

TEST(RecurrentTest, LstmOnThePortableTargetMatchesInterpreter) {
  // The array and cell kernels compiled in from source, without oneDNN.
  expect_rnn_matches(rnn_model(true, 4, 2, 3, 5, 1), {4, 2, 3}, "portable");
}

// A list grown in a loop, as Python's to_static makes one: entry i = tanh(x * (i + 1))
// for i < 4; then its length, its entries stacked and concatenated.
TEST(RecurrentTest, ListGrownInALoopMatchesInterpreter) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {-1, 3});
  b.block().add_var(VarDesc("list", DType::kF32, Shape{-1, 3}, VarKind::kTensorArray));
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"n"}}},
       {{"shape", Ints{1}}, {"value", 4.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"k"}}},
       {{"shape", Ints{1}}, {"value", 1.0}, {"dtype", std::string("float32")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [](BlockBuilder& body) {
    std::string scaled = body.apply("elementwise_mul", {{"X", {"x"}}, {"Y", {"k"}}});
    std::string entry = body.apply("tanh", {{"X", {scaled}}});
    body.op("write_to_array", {{"X", {entry}}, {"I", {"i"}}}, {{"Out", {"list"}}});
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("increment", {{"X", {"k"}}}, {{"Out", {"k"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  });
  const std::string length = b.apply("array_length", {{"X", {"list"}}});
  const std::string stacked = b.apply("tensor_array_to_tensor", {{"X", {"list"}}},
                                      {{"axis", int64_t{1}}, {"use_stack", true}});
  const std::string joined = b.apply("tensor_array_to_tensor", {{"X", {"list"}}},
                                     {{"axis", int64_t{0}}, {"use_stack", false}});
  m.program.feed_names = {"x"};
  m.program.fetch_names = {length, stacked, joined};
  const codegen::CompiledModel c = compile(m, scratch_dir());
  EXPECT_NE(c.generated.model_cc.find("TensorArray list;"), std::string::npos);
  for (int64_t rows : {1, 2}) {
    const Tensor x = wave({rows, 3}, DType::kF32, 0.7, 0.3 * rows);
    const std::map<std::string, Tensor> got =
        run_executable(c.executable, {{"x", x}}, m.program.fetch_names);
    EXPECT_EQ(got.at(length).item<int64_t>(), 4);
    EXPECT_EQ(got.at(stacked).shape(), Shape({rows, 4, 3}));
    expect_same(got, interpret(m, {{"x", x}}, m.program.fetch_names), 1e-6);
  }
}

// Two lists, one per branch's value, joined by select_input as if/else joins them.
TEST(RecurrentTest, SelectInputPicksAnArrayAsTheInterpreter) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {2, 3});
  b.data("mask", DType::kI32, {1});
  for (const char* list : {"plain", "squashed"})
    b.block().add_var(VarDesc(list, DType::kF32, Shape{2, 3}, VarKind::kTensorArray));
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("write_to_array", {{"X", {"x"}}, {"I", {"i"}}}, {{"Out", {"plain"}}});
  const std::string squashed = b.apply("tanh", {{"X", {"x"}}});
  b.op("write_to_array", {{"X", {squashed}}, {"I", {"i"}}}, {{"Out", {"squashed"}}});
  const std::string picked =
      b.apply("select_input", {{"X", {"plain", "squashed"}}, {"Mask", {"mask"}}});
  m.program.feed_names = {"x", "mask"};
  m.program.fetch_names = {b.apply("read_from_array", {{"X", {picked}}, {"I", {"i"}}})};
  const codegen::CompiledModel c = compile(m, scratch_dir());
  const Tensor x = wave({2, 3}, DType::kF32, 1.2, 0.5);
  for (int32_t pick : {0, 1}) {
    const Tensor mask = Tensor::from_vector<int32_t>({1}, {pick});
    const std::map<std::string, Tensor> feeds = {{"x", x}, {"mask", mask}};
    expect_same(run_executable(c.executable, feeds, m.program.fetch_names),
                interpret(m, feeds, m.program.fetch_names), 1e-6);
  }
}

TEST(RecurrentTest, ArrayWhereARuleTakesATensorIsNamed) {
  // relu takes a dense tensor in compiled programs; given an array it is refused.
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {2, 3});
  b.block().add_var(VarDesc("list", DType::kF32, Shape{2, 3}, VarKind::kTensorArray));
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("write_to_array", {{"X", {"x"}}, {"I", {"i"}}}, {{"Out", {"list"}}});
  m.program.fetch_names = {b.apply("relu", {{"X", {"list"}}})};
  const std::string dir = scratch_dir();
  const std::string message = error_of([&] { compile(m, dir); });
  EXPECT_NE(message.find("relu at "), std::string::npos) << message;
  EXPECT_NE(message.find("recurrent_test.cc:"), std::string::npos) << message;
  EXPECT_NE(message.find("input X[0] 'list' is a tensor_array"), std::string::npos) << message;
}

}  // namespace
}  // namespace skiff::testing
