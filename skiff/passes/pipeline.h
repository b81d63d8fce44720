// Program-to-program passes and the one pipeline that runs them. A pass is a free
// function `Program pass(const Program&)`; the pipeline is a named list. With the
// environment variable SKIFF_DUMP_IR=1 the pipeline prints the program (as text)
// after each pass to stderr.
//
//   Program optimized = run_pipeline(program, inference_pipeline());
#pragma once

#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

using PassFn = Program (*)(const Program&);

struct Pass {
  std::string name;
  PassFn run;
};

// Runs the passes in order, dumping the IR after each when SKIFF_DUMP_IR is set.
Program run_pipeline(const Program& program, const std::vector<Pass>& passes);

// The passes applied to programs that only run forward (inference): fusions that
// are exact in forward but would lose values a backward pass needs.
std::vector<Pass> inference_pipeline();

}  // namespace skiff
