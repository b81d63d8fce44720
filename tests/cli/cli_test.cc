// The `skiff` command line, run as a separate process: help, ops, print, verify and
// run (with feeds, parameters, printed and saved fetches), and its failure modes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "skiff/formats/npy.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/file_io.h"
#include "skiff/ir/serialize.h"
#include "tests/ir/sample_programs.h"

#ifndef SKIFF_CLI_PATH
#error "SKIFF_CLI_PATH must name the built skiff binary"
#endif

namespace skiff {
namespace {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        (std::filesystem::temp_directory_path() / ("skiff_cli_test_" + std::to_string(::getpid())))
            .string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs `skiff <args>` (args are passed through the shell as written).
  CliResult skiff(const std::string& args) const {
    const std::string command = std::string(SKIFF_CLI_PATH) + " " + args + " >" +
                                path("stdout.txt") + " 2>" + path("stderr.txt");
    const int raw = std::system(command.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_file(path("stdout.txt"));
    r.err = read_file(path("stderr.txt"));
    return r;
  }

  std::string dir_;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(CliTest, Help) {
  CliResult r = skiff("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(contains(r.out, "usage: skiff <command>")) << r.out;
  for (const char* command : {"ops", "print", "verify", "run"}) {
    CliResult c = skiff(std::string(command) + " --help");
    EXPECT_EQ(c.status, 0) << command;
    EXPECT_TRUE(contains(c.out, std::string("usage: skiff ") + command)) << c.out;
  }
  EXPECT_EQ(skiff("").status, 2);
  CliResult unknown = skiff("frobnicate");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.err, "skiff: unknown command 'frobnicate' (see `skiff --help`)\n");
}

TEST_F(CliTest, OpsListsTheRegistry) {
  CliResult all = skiff("ops");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_TRUE(contains(all.out, "\nwhile\n  Runs sub_block while Condition")) << all.out;
  EXPECT_TRUE(contains(all.out, "  attr   sub_block: block (required)")) << all.out;
  EXPECT_TRUE(contains(all.out, "  attr   keep_step_scopes: bool = false")) << all.out;
  EXPECT_TRUE(contains(all.out, "  input  X (list)")) << all.out;
  EXPECT_TRUE(contains(all.out, "  output StepScopes (optional)")) << all.out;
  CliResult one = skiff("ops tanh");
  ASSERT_EQ(one.status, 0);
  EXPECT_EQ(one.out.rfind("tanh\n", 0), 0u) << one.out;
  EXPECT_FALSE(contains(one.out, "while"));
  CliResult missing = skiff("ops no_such_op");
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(contains(missing.err, "unknown op type 'no_such_op'")) << missing.err;
}

TEST_F(CliTest, PassesListsTheRegisteredPasses) {
  CliResult all = skiff("passes");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out.rfind("fuse_conv_bias_relu\n", 0), 0u) << all.out;
  EXPECT_TRUE(contains(all.out, "\nps_split\n")) << all.out;
  EXPECT_TRUE(contains(all.out, "  option mode: string = \"sync\"")) << all.out;
  CliResult one = skiff("passes convert_to_int8");
  ASSERT_EQ(one.status, 0);
  EXPECT_EQ(one.out.rfind("convert_to_int8\n", 0), 0u) << one.out;
  EXPECT_FALSE(contains(one.out, "ps_split"));
  CliResult missing = skiff("passes fuse_everything");
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(contains(missing.err, "no pass named 'fuse_everything'")) << missing.err;
}

TEST_F(CliTest, PrintAndVerify) {
  save_program(testing::counting_loop_program(), path("loop.skmodel"));
  CliResult printed = skiff("print " + path("loop.skmodel"));
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_TRUE(contains(printed.out, "block 0 (parent -1):\n")) << printed.out;
  EXPECT_TRUE(contains(printed.out, "\n    block 1 (parent 0):\n")) << printed.out;
  EXPECT_TRUE(contains(printed.out, "= tanh(X={x})")) << printed.out;

  CliResult ok = skiff("verify " + path("loop.skmodel"));
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.out.rfind("OK: ", 0), 0u) << ok.out;

  Program bad = testing::counting_loop_program();
  bad.global_block().append_op("no_such_op");
  save_program(bad, path("bad.skmodel"));
  CliResult rejected = skiff("verify " + path("bad.skmodel"));
  EXPECT_EQ(rejected.status, 1);
  EXPECT_TRUE(contains(rejected.err, "unknown op type 'no_such_op'")) << rejected.err;
  EXPECT_EQ(std::count(rejected.err.begin(), rejected.err.end(), '\n'), 1) << rejected.err;

  write_file_atomically(path("junk.skmodel"), "junk");
  CliResult junk = skiff("print " + path("junk.skmodel"));
  EXPECT_EQ(junk.status, 1);
  EXPECT_TRUE(contains(junk.err, "not a skiff program file")) << junk.err;
  EXPECT_EQ(skiff("verify").status, 2);
  EXPECT_EQ(skiff("print a b").status, 2);
}

TEST_F(CliTest, RunPrintsAndSavesFetches) {
  save_program(testing::counting_loop_program(), path("loop.skmodel"));
  const std::vector<float> x = {0.5f, -1, 2, 0, 0.25f, 3};
  write_npy(path("x.npy"), Tensor::from_vector<float>({2, 3}, x));
  CliResult printed =
      skiff("run " + path("loop.skmodel") + " --feed x=" + path("x.npy") + " --fetch i");
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_EQ(printed.out, "i: int64[1]\n[3]\n");

  CliResult saved = skiff("run " + path("loop.skmodel") + " --feed=x=" + path("x.npy") +
                          " --fetch x --fetch i --out " + path("out"));
  ASSERT_EQ(saved.status, 0) << saved.err;
  EXPECT_TRUE(contains(saved.out, "wrote " + path("out") + "/x.npy (x: float32[2, 3])"))
      << saved.out;
  std::vector<float> y = read_npy(path("out/x.npy")).to_vector<float>();
  ASSERT_EQ(y.size(), x.size());
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_NEAR(y[k], std::tanh(std::tanh(std::tanh(x[k]))), 1e-6) << k;
  EXPECT_EQ(read_npy(path("out/i.npy")).item<int64_t>(), 3);
}

TEST_F(CliTest, RunLoadsParameters) {
  Program p;
  BlockBuilder b(&p);
  b.data("x", DType::kF32, {-1, 3});
  b.persistable("w", DType::kF32, {2, 3});
  b.op("elementwise_mul", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"y"}}});
  save_program(p, path("scale.skmodel"));
  save_params(path("scale.skparams"),
              {{"w", Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
  write_npy(path("x.npy"), Tensor::from_vector<float>({2, 3}, {1, 1, 1, 2, 2, 2}));
  CliResult r = skiff("run " + path("scale.skmodel") + " --params " + path("scale.skparams") +
                      " --feed x=" + path("x.npy") + " --fetch y");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "y: float32[2, 3]\n[[1, 2, 3],\n [8, 10, 12]]\n");

  CliResult no_params =
      skiff("run " + path("scale.skmodel") + " --feed x=" + path("x.npy") + " --fetch y");
  EXPECT_EQ(no_params.status, 1);
  EXPECT_EQ(no_params.err.rfind("skiff run: error: ", 0), 0u) << no_params.err;
}

TEST_F(CliTest, RunFailuresAreOneLine) {
  save_program(testing::counting_loop_program(), path("loop.skmodel"));
  CliResult missing = skiff("run " + path("loop.skmodel") + " --feed x=" + path("nope.npy"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(contains(missing.err, "cannot open '" + path("nope.npy") + "'")) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

  CliResult syntax = skiff("run " + path("loop.skmodel") + " --feed x");
  EXPECT_EQ(syntax.status, 2);
  EXPECT_TRUE(contains(syntax.err, "--feed takes NAME=FILE.npy")) << syntax.err;
  EXPECT_EQ(skiff("run " + path("loop.skmodel") + " --bogus 1").status, 2);
  EXPECT_EQ(skiff("run").status, 2);
  EXPECT_EQ(skiff("run " + path("loop.skmodel") + " --fetch").status, 2);
}

}  // namespace
}  // namespace skiff
