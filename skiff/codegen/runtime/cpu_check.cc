// skiff_model_cpu_error (model_api.h): compiled for any CPU of the architecture (the
// Makefile's ANY_CPU_CXXFLAGS, no -march), since it runs before any code compiled for the
// model's CPU. Plain C calls only; skiff_model_cpu and skiff_model_cpu_features, which it
// calls, return string literals.
#include <cstdio>

#include "skiff/codegen/runtime/model_api.h"
#include "skiff/core/cpu.h"

extern "C" const char* skiff_model_cpu_error(void) {
  static char message[1024];
  static int missing_count = -1;
  if (missing_count < 0) {
    char missing[512];
    missing_count =
        skiff::cpu_missing_features(skiff_model_cpu_features(), missing, sizeof missing);
    const char* cpu = skiff_model_cpu();
    std::snprintf(message, sizeof message,
                  "this model was compiled for %s (skiff compile --cpu %s) and needs CPU "
                  "features this CPU lacks:%s; compile it again with --cpu x86-64-v3 (any AVX2 "
                  "CPU), or with --cpu native on the machine that runs it",
                  cpu, cpu, missing);
  }
  return missing_count > 0 ? message : nullptr;
}
