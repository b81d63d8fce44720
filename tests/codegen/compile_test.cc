// skiff compile, target x86-64: the generated executable gives the interpreter's outputs
// for an MLP, W1's while loop, an if/else and a CNN; errors name what is wrong.
#include "skiff/codegen/target.h"
#include "skiff/dist/communicator.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

using codegen::CompiledModel;
using codegen::CompileOptions;

CompiledModel compile(const ModelWithParams& m, const std::string& dir,
                      const std::string& target = "x86-64") {
  CompileOptions o;
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

TEST(CompileTest, MlpExecutableMatchesInterpreter) {
  const ModelWithParams m = mlp_model();
  const std::string dir = scratch_dir();
  const CompiledModel c = compile(m, dir);
  const std::string out = m.program.fetch_names[0];
  const Tensor x = wave({3, 8}, DType::kF32, 1.5, 0.4);
  expect_same(run_executable(c.executable, {{"x", x}}, {out}), interpret(m, {{"x", x}}, {out}),
              1e-6);
  // The generated file reads as the program: ops named with their source lines.
  EXPECT_NE(c.generated.model_cc.find("kernels::matmul("), std::string::npos);
  EXPECT_NE(c.generated.model_cc.find("programs.h:"), std::string::npos);
}

TEST(CompileTest, WhileLoopMatchesInterpreter) {
  const ModelWithParams m = w1_model(100);
  const std::string dir = scratch_dir();
  const CompiledModel c = compile(m, dir);
  // Every variable of W1's loop has a fixed shape: the loop runs on bound buffers.
  EXPECT_NE(c.generated.model_cc.find("while (*cond_data) {"), std::string::npos);
  expect_same(run_executable(c.executable, {}, {"h"}), interpret(m, {}, {"h"}), 1e-6);
}

TEST(CompileTest, WhileLoopOverADynamicShapeMatchesInterpreter) {
  // h = tanh(2 h + x) three times, x [-1, 4] fed: the loop calls the kernels.
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {-1, 4});
  b.op("assign", {{"X", {"x"}}}, {{"Out", {"h"}}});
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", std::vector<int64_t>{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"n"}}},
       {{"shape", std::vector<int64_t>{1}}, {"value", 3.0}, {"dtype", std::string("int64")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [](BlockBuilder& body) {
    std::string twice = body.apply("scale", {{"X", {"h"}}}, {{"scale", 2.0}});
    std::string sum = body.apply("elementwise_add", {{"X", {twice}}, {"Y", {"x"}}});
    body.assign(body.apply("tanh", {{"X", {sum}}}), "h");
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  });
  m.program.feed_names = {"x"};
  m.program.fetch_names = {"h"};
  const CompiledModel c = compile(m, scratch_dir());
  EXPECT_NE(c.generated.model_cc.find("while (codegen::condition("), std::string::npos);
  for (int64_t rows : {1, 3}) {
    const Tensor x = wave({rows, 4}, DType::kF32, 0.8, 0.5 * rows);
    expect_same(run_executable(c.executable, {{"x", x}}, {"h"}), interpret(m, {{"x", x}}, {"h"}),
                1e-6);
  }
}

TEST(CompileTest, IfElseTakesEachBranchAsTheInterpreter) {
  const ModelWithParams m = if_else_model();
  const std::string dir = scratch_dir();
  const CompiledModel c = compile(m, dir);
  EXPECT_NE(c.generated.model_cc.find("if (codegen::condition("), std::string::npos);
  const std::string out = m.program.fetch_names[0];
  for (double offset : {1.0, -1.0}) {  // sum(x) > 0, then sum(x) < 0
    const Tensor x = wave({2, 3}, DType::kF32, 0.5, 0.1, offset);
    expect_same(run_executable(c.executable, {{"x", x}}, {out}), interpret(m, {{"x", x}}, {out}),
                1e-6);
  }
}

TEST(CompileTest, CnnMatchesInterpreter) {
  const ModelWithParams m = cnn_model();
  const std::string dir = scratch_dir();
  const CompiledModel c = compile(m, dir);
  const std::string out = m.program.fetch_names[0];
  const Tensor x = wave({2, 1, 8, 8}, DType::kF32, 1.0, 0.7, 0.2);
  expect_same(run_executable(c.executable, {{"x", x}}, {out}), interpret(m, {{"x", x}}, {out}),
              1e-5);
}

TEST(CompileTest, NormTransposeConcatDropoutMatchInterpreter) {
  // x [-1, 2, 3, 3] -> batch_norm (running statistics) -> transpose -> layer_norm over the
  // last two dims -> concat with itself -> dropout at inference.
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {-1, 2, 3, 3});
  for (const char* name : {"bn_scale", "bn_bias", "bn_mean", "bn_var"}) {
    b.persistable(name, DType::kF32, {2});
    const bool var = std::string(name) == "bn_var";
    m.params.push_back({name, wave({2}, DType::kF32, 0.3, name[3], var ? 1.0 : 0.0)});
  }
  const std::string bn = b.unique_name("bn"), saved_mean = b.unique_name("saved_mean"),
                    saved_var = b.unique_name("saved_var");
  b.op("batch_norm",
       {{"X", {"x"}},
        {"Scale", {"bn_scale"}},
        {"Bias", {"bn_bias"}},
        {"Mean", {"bn_mean"}},
        {"Variance", {"bn_var"}}},
       {{"Y", {bn}},
        {"MeanOut", {"bn_mean"}},
        {"VarianceOut", {"bn_var"}},
        {"SavedMean", {saved_mean}},
        {"SavedVariance", {saved_var}}},
       {{"is_test", true}});
  const std::string t =
      b.apply("transpose", {{"X", {bn}}}, {{"axis", std::vector<int64_t>{0, 2, 3, 1}}});
  const std::string ln = b.unique_name("ln"), mean = b.unique_name("mean"),
                    var = b.unique_name("var");
  b.op("layer_norm", {{"X", {t}}}, {{"Y", {ln}}, {"Mean", {mean}}, {"Variance", {var}}},
       {{"begin_norm_axis", int64_t{2}}});
  const std::string cat = b.apply("concat", {{"X", {ln, t}}}, {{"axis", int64_t{1}}});
  const std::string out = b.unique_name("dropped");
  b.op("dropout", {{"X", {cat}}}, {{"Out", {out}}},
       {{"dropout_prob", 0.25},
        {"is_test", true},
        {"dropout_implementation", std::string("upscale_in_train")}});
  m.program.feed_names = {"x"};
  m.program.fetch_names = {out};
  const CompiledModel c = compile(m, scratch_dir());
  const Tensor x = wave({2, 2, 3, 3}, DType::kF32, 1.0, 0.3, 0.1);
  expect_same(run_executable(c.executable, {{"x", x}}, {out}), interpret(m, {{"x", x}}, {out}),
              1e-6);
}

TEST(CompileTest, HelpListsInputsAndOutputs) {
  const ModelWithParams m = mlp_model();
  const CompiledModel c = compile(m, scratch_dir());
  std::string help;
  ASSERT_EQ(run_command(c.executable + " --help", &help), 0) << help;
  EXPECT_NE(help.find("x  float32[?, 8]"), std::string::npos) << help;
  EXPECT_NE(help.find(m.program.fetch_names[0] + "  float32[?, 4]"), std::string::npos) << help;
  // A wrong input is refused with its expected type.
  std::string output;
  write_npy(c.executable + "_bad.npy", wave({3, 5}, DType::kF32, 1, 0));
  EXPECT_NE(run_command(c.executable + " --in x=" + c.executable + "_bad.npy", &output), 0);
  EXPECT_NE(output.find("input 'x' must be float32[-1, 8], got float32[3, 5]"), std::string::npos)
      << output;
}

// An op of this test whose kernel is a plain function, not a binding, and which has no
// codegen rule: every op of skiff compiles (or says why not: tests/tools/op_paths_test.cc),
// so the refusal is shown on this one.
void register_unbound_op(OpRegistry& r) {
  r.add("test_unbound_copy")
      .doc("Out = X, by a kernel the compiler cannot see.")
      .input("X", "float32")
      .output("Out", "X")
      .infer_shape(infer_out_like_x)
      .kernel({DType::kF32}, [](KernelContext& c) { *c.out("Out") = c.in("X"); });
}
const OpRegistrar kUnboundOp(register_unbound_op);

TEST(CompileTest, OpWithoutRuleIsNamedWithItsLine) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {2, 3});
  m.program.fetch_names = {b.apply("test_unbound_copy", {{"X", {"x"}}})};
  const std::string dir = scratch_dir();
  const std::string message = error_of([&] { compile(m, dir); });
  EXPECT_NE(message.find("op 'test_unbound_copy'"), std::string::npos) << message;
  EXPECT_NE(message.find("compile_test.cc:"), std::string::npos) << message;
  EXPECT_NE(message.find("no C++ emitter rule"), std::string::npos) << message;
}

// Collective ops compile to the calls of dist/collective.h; outside a launched job the
// model is a world of one (the multi-process runs: tests/python/distributed).
TEST(CompileTest, CollectiveOpsRunAsAWorldOfOneOutsideAJob) {
  ModelWithParams m;
  BlockBuilder b(&m.program);
  b.data("x", DType::kF32, {2, 3});
  const std::string sum = b.apply("c_allreduce_avg", {{"X", {"x"}}});
  const std::string gathered = b.apply("c_allgather", {{"X", {sum}}}, {{"nranks", int64_t{1}}});
  m.program.fetch_names = {b.apply("c_broadcast", {{"X", {gathered}}}, {{"root", int64_t{0}}})};
  const std::string dir = scratch_dir();
  const CompiledModel c = compile(m, dir);
  EXPECT_TRUE(c.generated.distributed);
  EXPECT_NE(c.generated.model_cc.find("dist::ring_all_gather(0, "), std::string::npos);
  EXPECT_NE(c.generated.model_cc.find("dist::init_parallel_env();"), std::string::npos);
  dist::set_communicator(0, dist::single_process_communicator());
  const Tensor x = wave({2, 3}, DType::kF32, 0.7, 0.2);
  const std::string out = m.program.fetch_names[0];
  expect_same(run_executable(c.executable, {{"x", x}}, {out}), interpret(m, {{"x", x}}, {out}), 0);
  dist::set_communicator(0, nullptr);

  // A portable model has no communicator: the op is named with its line.
  const std::string message = error_of([&] { compile(m, dir, "portable"); });
  EXPECT_NE(message.find("c_allreduce_avg at "), std::string::npos) << message;
  EXPECT_NE(message.find("compile_test.cc:"), std::string::npos) << message;
  EXPECT_NE(message.find("compile for target x86-64"), std::string::npos) << message;
}

TEST(CompileTest, MissingParameterAndUnknownTargetAreErrors) {
  ModelWithParams m = mlp_model();
  m.params.pop_back();
  const std::string dir = scratch_dir();
  EXPECT_NE(error_of([&] { compile(m, dir); }).find("'fc1_b', which is not in"), std::string::npos);
  EXPECT_NE(error_of([&] { compile(mlp_model(), dir, "sparc"); }).find("unknown target 'sparc'"),
            std::string::npos);
}

TEST(CompileTest, CliWritesSourceAndExecutable) {
  const ModelWithParams m = if_else_model();
  const std::string dir = scratch_dir();
  const std::string model = save_model(m, dir);
  std::string output;
  const std::string cli = codegen::skiff_library_dir() + "/../bin/skiff";
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "no skiff command line at " << cli;
  ASSERT_EQ(run_command(cli + " compile " + model + " -o " + dir + "/cli -j 2", &output), 0)
      << output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/cli/model.cc"));
  const Tensor x = wave({2, 3}, DType::kF32, 0.5, 0.1, 1.0);
  const std::string out = m.program.fetch_names[0];
  expect_same(run_executable(dir + "/cli/model", {{"x", x}}, {out}),
              interpret(m, {{"x", x}}, {out}), 1e-6);
}

}  // namespace
}  // namespace skiff::testing
