// The first code of libskiff to run when it loads, compiled for any x86-64 (CMake gives this
// file no -march): on a CPU without the features of libskiff's baseline it stops the process
// with a message naming them, instead of an illegal instruction later; then it applies
// SKIFF_MAX_CPU_ISA. Plain C calls only (see cpu.cc).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "skiff/core/cpu.h"

namespace skiff {

// cpu_baseline.cc: constant data compiled with libskiff's baseline flags.
extern const char kCpuBaselineFeatures[], kCpuBaselineName[];

namespace {

// Priority 101 is the first a program may use: before every C++ initialiser of libskiff.
__attribute__((constructor(101))) void check_cpu_at_load() {
  char missing[512];
  if (cpu_missing_features(kCpuBaselineFeatures, missing, sizeof missing) > 0) {
    std::fprintf(stderr,
                 "skiff: this skiff was compiled for %s and needs CPU features this CPU lacks:%s\n"
                 "skiff: build skiff on this machine with cmake -DSKIFF_BASELINE=x86-64-v2 (or "
                 "x86-64); see docs/cpu.md\n",
                 kCpuBaselineName, missing);
    _exit(1);
  }
  const char* cap = std::getenv("SKIFF_MAX_CPU_ISA");
  if (cap && *cap) {
    const int isa = cpu_isa_index(cap);
    if (isa < 0) {
      std::fprintf(stderr,
                   "skiff: SKIFF_MAX_CPU_ISA='%s' is not one of generic, avx2, avx512, "
                   "avx512_bf16\n",
                   cap);
      _exit(1);
    }
    set_max_cpu_isa(static_cast<CpuIsa>(isa));
  } else {
    set_max_cpu_isa(CpuIsa::kAvx512Bf16);  // no cap: the CPU's best
  }
}

}  // namespace
}  // namespace skiff
