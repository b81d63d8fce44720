#include "skiff/core/cpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "skiff/core/error.h"

namespace skiff {
namespace {

// The flags line of /proc/cpuinfo as a set ("" names none where there is no such file).
std::set<std::string> proc_cpuinfo_flags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(f, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;) flags.insert(w);
    break;
  }
  return flags;
}

// Restores the cap a test changes.
class CpuIsaCap : public ::testing::Test {
 protected:
  void TearDown() override { set_max_cpu_isa(saved_); }
  CpuIsa saved_ = max_cpu_isa();
};

TEST(Cpu, FeaturesAgreeWithTheKernelsView) {
  // cpuid decoding checked against Linux's own: every feature Linux names the same way.
  const std::set<std::string> linux_flags = proc_cpuinfo_flags();
  if (linux_flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo here";
  for (const std::string& name : cpu_feature_names()) {
    if (name == "sse3" || name == "lzcnt") continue;  // Linux: pni, abm
    EXPECT_EQ(cpu_has(name), linux_flags.count(name) == 1) << name;
  }
  EXPECT_EQ(cpu_has("sse3"), linux_flags.count("pni") == 1);
  EXPECT_EQ(cpu_has("lzcnt"), linux_flags.count("abm") == 1);
}

TEST(Cpu, FeatureListsAreConsistent) {
  const std::vector<std::string> names = cpu_feature_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  for (const std::string& f : cpu_features()) {
    EXPECT_TRUE(cpu_has(f)) << f;
    EXPECT_NE(std::find(names.begin(), names.end(), f), names.end()) << f;
  }
  EXPECT_FALSE(cpu_has("no_such_feature"));
  EXPECT_TRUE(cpu_has("sse2"));  // every x86-64
}

TEST(Cpu, BestIsaFollowsTheFeatures) {
  const bool avx2 = cpu_has("avx") && cpu_has("avx2") && cpu_has("fma");
  const bool avx512 = avx2 && cpu_has("avx512f") && cpu_has("avx512cd") && cpu_has("avx512bw") &&
                      cpu_has("avx512dq") && cpu_has("avx512vl");
  const bool bf16 = avx512 && cpu_has("avx512_bf16");
  const CpuIsa expected = bf16     ? CpuIsa::kAvx512Bf16
                          : avx512 ? CpuIsa::kAvx512
                          : avx2   ? CpuIsa::kAvx2
                                   : CpuIsa::kGeneric;
  EXPECT_EQ(cpu_best_isa(), expected);
}

// Under an emulated CPU (tests/emulated_cpus.cmake), the set it should detect.
TEST(Cpu, BestIsaIsTheExpectedOne) {
  const char* expected = std::getenv("SKIFF_TEST_EXPECT_ISA");
  if (!expected) GTEST_SKIP() << "SKIFF_TEST_EXPECT_ISA is not set";
  EXPECT_STREQ(cpu_isa_name(cpu_best_isa()), expected);
  if (std::string(expected) == "avx2") {
    EXPECT_FALSE(cpu_has("avx512f"));
  }
}

TEST(Cpu, TheBaselineIsRunnableHere) {
  // The library loaded, so its baseline check passed: every feature it was compiled for.
  char missing[256];
  EXPECT_EQ(cpu_missing_features(cpu_baseline_features(), missing, sizeof missing), 0) << missing;
  EXPECT_STRNE(cpu_baseline_name(), "");
}

TEST(Cpu, MissingFeaturesAreNamed) {
  char out[64];
  EXPECT_EQ(cpu_missing_features(" sse2  no_such_feature other_one", out, sizeof out), 2);
  EXPECT_STREQ(out, " no_such_feature other_one");
  EXPECT_EQ(cpu_missing_features("", out, sizeof out), 0);
  EXPECT_STREQ(out, "");
  // A short buffer keeps whole words only, and the count stays exact.
  char tiny[10];
  EXPECT_EQ(cpu_missing_features("aaaa bbbb cccc", tiny, sizeof tiny), 3);
  EXPECT_STREQ(tiny, " aaaa");
}

TEST(Cpu, IsaNamesRoundTrip) {
  for (CpuIsa isa : {CpuIsa::kGeneric, CpuIsa::kAvx2, CpuIsa::kAvx512, CpuIsa::kAvx512Bf16})
    EXPECT_EQ(cpu_isa_from_name(cpu_isa_name(isa)), isa);
  try {
    cpu_isa_from_name("sse9");
    FAIL() << "no error for an unknown set";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'sse9'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("avx512_bf16"), std::string::npos) << e.what();
  }
}

TEST_F(CpuIsaCap, CapLowersTheKernelIsaNeverRaisesIt) {
  set_max_cpu_isa(CpuIsa::kGeneric);
  EXPECT_EQ(kernel_isa(), CpuIsa::kGeneric);
  EXPECT_EQ(max_cpu_isa(), CpuIsa::kGeneric);
  set_max_cpu_isa(CpuIsa::kAvx512Bf16);
  EXPECT_EQ(kernel_isa(), cpu_best_isa());
  set_max_cpu_isa(CpuIsa::kAvx2);
  EXPECT_EQ(kernel_isa(), std::min(cpu_best_isa(), CpuIsa::kAvx2));
}

TEST_F(CpuIsaCap, DispatchPassesTheTagOfTheKernelIsa) {
  auto level = [](auto isa) {
    using Tag = decltype(isa);
    if constexpr (std::is_same_v<Tag, Avx512Bf16Isa>) return CpuIsa::kAvx512Bf16;
    if constexpr (std::is_same_v<Tag, Avx512Isa>) return CpuIsa::kAvx512;
    if constexpr (std::is_same_v<Tag, Avx2Isa>) return CpuIsa::kAvx2;
    return CpuIsa::kGeneric;
  };
  for (CpuIsa cap : {CpuIsa::kGeneric, CpuIsa::kAvx2, CpuIsa::kAvx512, CpuIsa::kAvx512Bf16}) {
    set_max_cpu_isa(cap);
    EXPECT_EQ(dispatch_isa(level), std::min(cap, cpu_best_isa()));
  }
}

}  // namespace
}  // namespace skiff
