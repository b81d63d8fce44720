// Error messages that place a failure at an op: its type, the creating source line,
// and each input/output variable with its declared (or run-time) type.
#pragma once

#include <string>

#include "skiff/ir/program.h"

namespace skiff {

class KernelContext;

// "op 'matmul' (model.py:12) in block 0, inputs X=x float32[2, 3], Y=w float32[4, 5]:
//  <what>" using the declared VarDescs.
std::string describe_op_error(const Program& program, int block_idx, const OpDesc& op,
                              const std::string& what);
// The same with the run-time tensors of a kernel call.
std::string describe_kernel_error(const KernelContext& ctx, const std::string& what);

}  // namespace skiff
