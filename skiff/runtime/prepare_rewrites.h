// What prepare changes in a block's ops before making instructions of them: rewrites that
// save ops at run time and change nothing observable (no fetched value, nothing a backward
// op reads, no result). Internal to the runtime.
//
//   t = P(...); v = assign(t)                 ->  v = P(...)
//   t = elementwise_add(x, y); o = tanh(t)    ->  o = elementwise_add(x, y, fuse_activation=tanh)
#pragma once

#include <set>
#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

// The ops of block `block_idx` rewritten for running; `keep` names the variables the
// caller fetches after the run. Activations are not fused while NaN/inf checks are on
// (nan_inf_check.h), so that each op's result is checked as the program wrote it.
std::vector<OpDesc> rewrite_for_run(const Program& program, int block_idx,
                                    const std::vector<std::string>& keep);

// Names an op touches, including those used anywhere inside its sub-blocks.
void collect_names(const Program& program, const OpDesc& op, std::set<std::string>* names);

}  // namespace skiff
