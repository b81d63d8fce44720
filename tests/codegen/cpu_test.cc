// skiff compile --cpu: what the model is compiled for, what --help says, and what happens
// on a CPU without those features (an AVX2-only CPU emulated by qemu-x86_64, see
// tests/emulated_cpus.cmake): a clear message and exit status 3, never an illegal
// instruction; a model compiled for x86-64-v3 runs there and gives the interpreter's values.
#include <sys/wait.h>

#include <string>

#include "skiff/codegen/target.h"
#include "skiff/core/cpu.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

// The qemu-x86_64 command of an AVX2-only CPU, "" where qemu-user is missing.
const std::string kAvx2Cpu = SKIFF_TEST_AVX2_CPU_RUNNER;

codegen::CompiledModel compile(const ModelWithParams& m, const std::string& dir,
                               const std::string& target, const std::string& cpu) {
  std::filesystem::create_directories(dir);
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.target = target;
  o.cpu = cpu;
  o.shared_library = target == "x86-64";
  o.jobs = 2;
  return codegen::compile_model_file(save_model(m, dir), o);
}

std::string output_of(const std::string& command, int* status) {
  std::string output;
  *status = run_command(command, &output);
  return output;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CompileCpu, HelpNamesTheCpuAndItsFeatures) {
  const std::string dir = scratch_dir();
  const codegen::CompiledModel v3 = compile(mlp_model(), dir + "/v3", "x86-64", "");
  int status = 0;
  std::string help = output_of(v3.executable + " --help", &status);
  EXPECT_EQ(status, 0) << help;
  EXPECT_TRUE(contains(help, "compiled for CPU: x86-64-v3 (features:")) << help;
  EXPECT_TRUE(contains(help, " avx2 fma")) << help;
  EXPECT_FALSE(contains(help, "avx512")) << help;
  EXPECT_TRUE(contains(v3.generated.model_cc, "for target x86-64, CPU x86-64-v3."));

  const codegen::CompiledModel v4 = compile(mlp_model(), dir + "/v4", "portable", "x86-64-v4");
  help = output_of(v4.executable + " --help", &status);
  if (cpu_best_isa() < CpuIsa::kAvx512) {
    // This machine cannot run it: the model says why (and exits with 3) instead.
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << help;
    EXPECT_TRUE(contains(help,
                         "compiled for x86-64-v4 (skiff compile --cpu x86-64-v4) and "
                         "needs CPU features this CPU lacks"))
        << help;
    return;
  }
  EXPECT_EQ(status, 0) << help;
  EXPECT_TRUE(contains(help, "compiled for CPU: x86-64-v4 (features:")) << help;
  EXPECT_TRUE(contains(help, " avx512f avx512cd avx512bw avx512dq avx512vl")) << help;
}

TEST(CompileCpu, UnknownCpusAreRefusedByName) {
  const std::string dir = scratch_dir();
  std::string error = error_of([&] { compile(mlp_model(), dir, "x86-64", "pentium9"); });
  EXPECT_TRUE(contains(error,
                       "target x86-64 takes --cpu x86-64-v3 x86-64-v4 x86-64-v2 x86-64 "
                       "native, not 'pentium9'"))
      << error;
  error = error_of([&] { compile(mlp_model(), dir, "aarch64", "x86-64-v3"); });
  EXPECT_TRUE(contains(error, "target aarch64 takes --cpu armv8-a, not 'x86-64-v3'")) << error;
}

TEST(CompileCpu, AModelForAvx512StopsOnAnAvx2Cpu) {
  if (kAvx2Cpu.empty()) GTEST_SKIP() << "needs qemu-x86_64 (Debian package qemu-user)";
  const std::string dir = scratch_dir();
  const std::string lacks =
      "compiled for x86-64-v4 (skiff compile --cpu x86-64-v4) and needs CPU features this CPU "
      "lacks: avx512f avx512cd avx512bw avx512dq avx512vl; compile it again with --cpu "
      "x86-64-v3";
  for (const std::string target : {"x86-64", "portable"}) {
    const codegen::CompiledModel c = compile(mlp_model(), dir + "/" + target, target, "x86-64-v4");
    int status = 0;
    const std::string output = output_of(kAvx2Cpu + " " + c.executable + " --help", &status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << target << ": " << output;
    EXPECT_TRUE(contains(output, "model: this model was " + lacks)) << target << ": " << output;
    EXPECT_FALSE(contains(output, "Illegal instruction")) << output;
    if (target != "x86-64") continue;
    // The library leaves the process to its host: skiff_model_create refuses.
    const std::string host =
        output_of(kAvx2Cpu + " " + SKIFF_TEST_MODEL_HOST + " " + c.library, &status);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 4) << host;
    EXPECT_TRUE(contains(host, "create failed: this model was " + lacks)) << host;
  }
}

TEST(CompileCpu, TheDefaultRunsOnAnAvx2Cpu) {
  if (kAvx2Cpu.empty()) GTEST_SKIP() << "needs qemu-x86_64 (Debian package qemu-user)";
  const std::string dir = scratch_dir();
  const ModelWithParams m = cnn_model();
  const std::map<std::string, Tensor> feeds = {{"x", wave({2, 1, 8, 8}, DType::kF32, 1.0, 0.7)}};
  const std::vector<std::string>& outs = m.program.fetch_names;
  const auto want = interpret(m, feeds, outs);
  for (const std::string target : {"x86-64", "portable"}) {
    const codegen::CompiledModel c = compile(m, dir + "/" + target, target, "");
    const auto got = run_executable(c.executable, feeds, outs, kAvx2Cpu);
    for (const std::string& name : outs) {
      std::string why;
      EXPECT_TRUE(all_close(got.at(name), want.at(name), 1e-5, 1e-5, &why))
          << target << " " << name << ": " << why;
    }
    int status = 0;
    const std::string host =
        target == "x86-64"
            ? output_of(kAvx2Cpu + " " + SKIFF_TEST_MODEL_HOST + " " + c.library, &status)
            : "ran\n";
    EXPECT_EQ(host, "ran\n");
  }
}

}  // namespace
}  // namespace skiff::testing
