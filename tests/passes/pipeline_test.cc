#include "skiff/passes/pipeline.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace skiff {
namespace {

Program append_relu(const Program& in) {
  Program out = in;
  out.global_block().append_op("relu").set_input("X", {"x"}).set_output("Out", {"x"});
  return out;
}

Program append_tanh(const Program& in) {
  Program out = in;
  out.global_block().append_op("tanh").set_input("X", {"x"}).set_output("Out", {"x"});
  return out;
}

TEST(Pipeline, RunsPassesInOrder) {
  Program p;
  p.global_block().add_var(VarDesc("x", DType::kF32, {2}));
  Program out = run_pipeline(p, {{"relu", append_relu}, {"tanh", append_tanh}});
  ASSERT_EQ(out.global_block().ops.size(), 2u);
  EXPECT_EQ(out.global_block().ops[0].type, "relu");
  EXPECT_EQ(out.global_block().ops[1].type, "tanh");
  EXPECT_TRUE(p.global_block().ops.empty()) << "the input program is not modified";
}

TEST(Pipeline, DumpsTheProgramAfterEachPass) {
  Program p;
  p.global_block().add_var(VarDesc("x", DType::kF32, {2}));
  setenv("SKIFF_DUMP_IR", "1", 1);
  ::testing::internal::CaptureStderr();
  run_pipeline(p, {{"relu", append_relu}, {"tanh", append_tanh}});
  std::string err = ::testing::internal::GetCapturedStderr();
  unsetenv("SKIFF_DUMP_IR");
  size_t first = err.find("=== after relu ===");
  size_t second = err.find("=== after tanh ===");
  ASSERT_NE(first, std::string::npos) << err;
  ASSERT_NE(second, std::string::npos) << err;
  EXPECT_LT(first, second);
  EXPECT_NE(err.find("tanh(X={x})", second), std::string::npos) << err;
}

}  // namespace
}  // namespace skiff
