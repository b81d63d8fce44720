// skiff compile --lib: the shared library's C interface (model.h) — create / run / destroy,
// inputs and outputs described, errors reported through skiff_model_last_error, contexts
// run on separate threads at once, parameters read from a file.
#include <thread>

#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

codegen::CompiledModel compile_library(const ModelWithParams& m, const std::string& dir,
                                       bool embed_params = true) {
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.shared_library = true;
  o.embed_params = embed_params;
  o.jobs = 2;
  return codegen::compile_model_file(save_model(m, dir), o);
}

TEST(LibraryTest, RunsAndDescribesTheModel) {
  const ModelWithParams m = mlp_model();
  const codegen::CompiledModel c = compile_library(m, scratch_dir());
  ModelLibrary lib(c.library);
  ASSERT_EQ(lib.num_inputs(), 1);
  EXPECT_STREQ(lib.input(0)->name, "x");
  EXPECT_EQ(lib.input(0)->dtype, SKIFF_FLOAT32);
  EXPECT_EQ(lib.input(0)->rank, 2);
  EXPECT_EQ(lib.input(0)->dims[0], -1);
  EXPECT_EQ(lib.input(0)->dims[1], 8);
  ASSERT_EQ(lib.num_outputs(), 1);
  EXPECT_EQ(lib.output(0)->name, m.program.fetch_names[0]);
  EXPECT_EQ(lib.input(1), nullptr);

  skiff_model* model = lib.create(nullptr);
  ASSERT_TRUE(model) << lib.last_error();
  const std::string out = m.program.fetch_names[0];
  for (int64_t batch : {1, 5}) {  // a dynamic batch dim
    const Tensor x = wave({batch, 8}, DType::kF32, 1.2, 0.3 * batch);
    const skiff_tensor in = c_tensor(x);
    skiff_tensor result;
    ASSERT_EQ(lib.run(model, &in, &result), 0) << lib.last_error();
    std::string why;
    EXPECT_TRUE(
        all_close(from_c_tensor(result), interpret(m, {{"x", x}}, {out}).at(out), 1e-6, 1e-6, &why))
        << why;
  }
  // Parameters are readable by name; unknown names and bad inputs are errors.
  skiff_tensor w;
  ASSERT_EQ(lib.variable(model, "fc0_w", &w), 0);
  EXPECT_EQ(w.rank, 2);
  EXPECT_EQ(w.dims[0], 8);
  EXPECT_EQ(lib.variable(model, "no_such_var", &w), -1);
  EXPECT_NE(std::string(lib.last_error()).find("no variable 'no_such_var'"), std::string::npos);
  const Tensor wrong = wave({2, 8}, DType::kF64, 1, 0);
  const skiff_tensor bad = c_tensor(wrong);
  skiff_tensor result;
  EXPECT_EQ(lib.run(model, &bad, &result), -1);
  EXPECT_NE(std::string(lib.last_error()).find("input 'x' must be float32[-1, 8], got float64"),
            std::string::npos)
      << lib.last_error();
  lib.destroy(model);
  // The header describes the interface and this model.
  std::ifstream header(c.header);
  const std::string text((std::istreambuf_iterator<char>(header)), {});
  EXPECT_NE(text.find("skiff_model_create"), std::string::npos);
  EXPECT_NE(text.find("input  x: tensor float32[-1, 8]"), std::string::npos) << text;
}

TEST(LibraryTest, ContextsRunOnSeparateThreadsAtOnce) {
  const ModelWithParams m = w1_model(200);
  const codegen::CompiledModel c = compile_library(m, scratch_dir());
  ModelLibrary lib(c.library);
  const Tensor want = interpret(m, {}, {"h"}).at("h");
  constexpr int kThreads = 4;
  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      skiff_model* model = lib.create(nullptr);
      if (!model) {
        ++failures[t];
        return;
      }
      for (int r = 0; r < 25; ++r) {
        skiff_tensor h;
        if (lib.run(model, nullptr, &h) != 0) {
          ++failures[t];
          continue;
        }
        std::string why;
        if (!all_close(from_c_tensor(h), want, 1e-6, 1e-6, &why)) ++mismatches[t];
      }
      lib.destroy(model);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
}

TEST(LibraryTest, ParametersFromAFile) {
  const ModelWithParams m = cnn_model();
  const std::string dir = scratch_dir();
  const codegen::CompiledModel c = compile_library(m, dir, /*embed_params=*/false);
  EXPECT_TRUE(c.generated.model_params.empty());
  ModelLibrary lib(c.library);
  EXPECT_EQ(lib.create(nullptr), nullptr);
  EXPECT_NE(std::string(lib.last_error()).find("pass its path"), std::string::npos);
  EXPECT_EQ(lib.create((dir + "/missing.skparams").c_str()), nullptr);
  EXPECT_NE(std::string(lib.last_error()).find("missing.skparams"), std::string::npos);
  skiff_model* model = lib.create(c.params_file.c_str());
  ASSERT_TRUE(model) << lib.last_error();
  const Tensor x = wave({1, 1, 8, 8}, DType::kF32, 1.0, 0.2);
  const skiff_tensor in = c_tensor(x);
  skiff_tensor result;
  ASSERT_EQ(lib.run(model, &in, &result), 0) << lib.last_error();
  const std::string out = m.program.fetch_names[0];
  std::string why;
  EXPECT_TRUE(
      all_close(from_c_tensor(result), interpret(m, {{"x", x}}, {out}).at(out), 1e-5, 1e-5, &why))
      << why;
  lib.destroy(model);
  // The executable finds model.skparams beside itself.
  std::map<std::string, Tensor> got = run_executable(c.executable, {{"x", x}}, {out});
  EXPECT_TRUE(all_close(got.at(out), interpret(m, {{"x", x}}, {out}).at(out), 1e-5, 1e-5, &why))
      << why;
}

}  // namespace
}  // namespace skiff::testing
