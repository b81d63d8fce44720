// Targets without oneDNN: `portable` (the kernels compiled in from source as plain C++) on
// this machine, and `aarch64` (portable, cross-compiled with aarch64-linux-gnu-g++) run
// under qemu-aarch64; both give the interpreter's outputs.
#include "skiff/codegen/target.h"
#include "tests/codegen/programs.h"
#include "tests/testing/op_test.h"

namespace skiff::testing {
namespace {

bool installed(const std::string& program) {
  std::string unused;
  return run_command("command -v " + program, &unused) == 0;
}

// Returns the executable's path.
std::string expect_target_matches(const ModelWithParams& m, const std::string& target,
                                  const std::map<std::string, Tensor>& feeds, double tol) {
  const std::string dir = scratch_dir(target);
  codegen::CompileOptions o;
  o.out_dir = dir + "/out";
  o.target = target;
  o.jobs = 2;
  const codegen::CompiledModel c = codegen::compile_model_file(save_model(m, dir), o);
  const std::vector<std::string> outs = m.program.fetch_names;
  const auto got = run_executable(c.executable, feeds, outs, codegen::find_target(target).runner);
  const auto want = interpret(m, feeds, outs);
  for (const std::string& name : outs) {
    std::string why;
    EXPECT_TRUE(all_close(got.at(name), want.at(name), tol, tol, &why))
        << target << " " << name << ": " << why;
  }
  // No oneDNN and no libskiff in the binary: the kernels are inside it.
  std::string libs;
  run_command("ldd " + c.executable, &libs);
  EXPECT_EQ(libs.find("dnnl"), std::string::npos) << libs;
  EXPECT_EQ(libs.find("libskiff"), std::string::npos) << libs;
  return c.executable;
}

TEST(PortableTest, PortableKernelSetHasNoOnednn) {
  const std::vector<std::string> sources = codegen::portable_kernel_sources({"matmul", "conv"});
  auto has = [&](const std::string& s) {
    return std::find(sources.begin(), sources.end(), s) != sources.end();
  };
  EXPECT_TRUE(has("skiff/kernels/cpu/gemm.cc"));  // matmul calls gemm
  EXPECT_TRUE(has("skiff/kernels/cpu/conv_direct.cc"));
  EXPECT_TRUE(has("skiff/codegen/runtime/conv_portable.cc"));
  EXPECT_FALSE(has("skiff/kernels/cpu/conv_onednn.cc"));
  EXPECT_FALSE(has("skiff/kernels/cpu/onednn_cache.cc"));
}

TEST(PortableTest, MlpCnnAndWhileLoopMatchInterpreter) {
  expect_target_matches(mlp_model(), "portable", {{"x", wave({3, 8}, DType::kF32, 1.5, 0.4)}},
                        1e-5);
  expect_target_matches(cnn_model(), "portable",
                        {{"x", wave({2, 1, 8, 8}, DType::kF32, 1.0, 0.7, 0.2)}}, 1e-5);
  expect_target_matches(w1_model(100), "portable", {}, 1e-5);
}

TEST(PortableTest, Aarch64UnderQemuMatchesInterpreter) {
  if (!installed("aarch64-linux-gnu-g++") || !installed("qemu-aarch64")) {
    GTEST_SKIP() << "needs the Debian packages g++-aarch64-linux-gnu and qemu-user";
  }
  expect_target_matches(cnn_model(), "aarch64",
                        {{"x", wave({2, 1, 8, 8}, DType::kF32, 1.0, 0.7, 0.2)}}, 1e-5);
  const std::string executable = expect_target_matches(w1_model(100), "aarch64", {}, 1e-5);
  // The binary is an ARM executable: ELF e_machine (bytes 18-19) is 183, EM_AARCH64.
  std::ifstream elf(executable, std::ios::binary);
  char header[20] = {};
  elf.read(header, sizeof header);
  EXPECT_EQ(static_cast<unsigned char>(header[18]) | static_cast<unsigned char>(header[19]) << 8,
            183);
}

}  // namespace
}  // namespace skiff::testing
