// What libskiff's baseline code is compiled for: constant data, compiled with the same flags
// as the rest of libskiff and checked by cpu_check.cc (compiled for any x86-64) when the
// library loads.
#include "skiff/core/cpu.h"
#include "skiff/core/cpu_compiled.h"

#ifndef SKIFF_BASELINE_NAME
#define SKIFF_BASELINE_NAME "the compiler's default"
#endif

namespace skiff {

extern const char kCpuBaselineFeatures[], kCpuBaselineName[];
const char kCpuBaselineFeatures[] = SKIFF_COMPILED_CPU_FEATURES;
const char kCpuBaselineName[] = SKIFF_BASELINE_NAME;

const char* cpu_baseline_features() { return kCpuBaselineFeatures; }
const char* cpu_baseline_name() { return kCpuBaselineName; }

}  // namespace skiff
