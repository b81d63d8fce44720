#include "skiff/passes/pipeline.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

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

TEST(Pipeline, RunsRegisteredPassesByName) {
  std::vector<std::string> names;
  for (const PassInfo& info : registered_passes()) names.push_back(info.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"fuse_conv_bias_relu", "convert_to_int8", "ps_split"}));
  Program p;
  p.global_block().add_var(VarDesc("x", DType::kF32, {2}));
  std::vector<PassReport> reports;
  Program out = run_pipeline(p, {pass("fuse_conv_bias_relu"), pass("convert_to_int8")}, &reports);
  EXPECT_EQ(out, p) << "nothing to fuse or convert";
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_TRUE(reports[0].items().empty());
  ASSERT_NE(reports[1].find("converted"), nullptr);
  EXPECT_EQ(std::get<int64_t>(*reports[1].find("converted")), 0);
}

TEST(Pipeline, ChecksPassNamesAndOptions) {
  auto error_of = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of([] {
              pass("fuse_everything");
            }).find("no pass named 'fuse_everything' (the passes: fuse_conv_bias_relu, "),
            std::string::npos);
  PassOptions typo;
  typo.set("k_step", int64_t{2});
  EXPECT_NE(
      error_of([&] { pass("ps_split", typo); }).find("pass 'ps_split' has no option 'k_step'"),
      std::string::npos);
  PassOptions wrong_type;
  wrong_type.set("mode", int64_t{2});
  EXPECT_NE(error_of([&] {
              pass("ps_split", wrong_type);
            }).find("option 'mode' takes type string, got int"),
            std::string::npos);
  PassOptions geo;
  geo.set("mode", std::string("geo"));
  const Pass filled = pass("ps_split", geo);
  EXPECT_EQ(std::get<std::string>(*filled.options.find("mode")), "geo");
  EXPECT_EQ(std::get<int64_t>(*filled.options.find("k_steps")), 0) << "defaults filled";
}

}  // namespace
}  // namespace skiff
