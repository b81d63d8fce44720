// Every case of an op test binary again, compiled. When SKIFF_TEST_COMPILED_CASES is set
// (ctest's NAME.compiled run of each test binary), the harness records each program it
// ran in the interpreter with its feeds and results; when the binary's tests end, one
// model holding all of them side by side is compiled (skiff compile, target x86-64) and
// run once, and each result is compared with the interpreter's. A case is left out when an
// op of it has no compile path (skiff ops lists the paths), draws unseeded random
// numbers, or when it has more than one block or a value the model's C interface does not
// carry (bfloat16, tensor arrays).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "skiff/core/tensor.h"
#include "skiff/ir/program.h"

namespace skiff::testing {

// True when this run records cases (SKIFF_TEST_COMPILED_CASES set).
bool recording_compiled_cases();

// Records `program` run on `feeds` giving `results` for `fetches`; `what` names the case
// in failures, compared within atol + rtol * |interpreter's value|.
void record_compiled_case(const std::string& what, const Program& program,
                          const std::map<std::string, Tensor>& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<Tensor>& results, double atol, double rtol);

}  // namespace skiff::testing
