#include "skiff/passes/pipeline.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "skiff/ir/printer.h"
#include "skiff/passes/fuse_conv.h"

namespace skiff {

namespace {

bool dump_enabled() {
  const char* v = std::getenv("SKIFF_DUMP_IR");
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

Program run_pipeline(const Program& program, const std::vector<Pass>& passes) {
  const bool dump = dump_enabled();
  Program current = program;
  if (dump) std::fprintf(stderr, "=== input ===\n%s\n", program_to_text(current).c_str());
  for (const Pass& pass : passes) {
    current = pass.run(current);
    if (dump) {
      std::fprintf(stderr, "=== after %s ===\n%s\n", pass.name.c_str(),
                   program_to_text(current).c_str());
    }
  }
  return current;
}

std::vector<Pass> inference_pipeline() {
  return {
      {"fuse_conv_bias_relu", fuse_conv_bias_relu},
  };
}

}  // namespace skiff
