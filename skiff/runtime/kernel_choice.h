// How an op's kernel is chosen, shared by the interpreter and eager mode: by the
// dtype of the op's `kernel_dtype_from` input if its registration names one, else of
// its first declared output, else of its first declared input, on the given place.
#pragma once

#include "skiff/core/place.h"
#include "skiff/ir/program.h"
#include "skiff/ops/registry.h"

namespace skiff {

// The kernel of `op` (an op of block `block_idx` whose variables are declared there);
// throws skiff::Error naming the op and the registered kernels when none fits.
KernelFn choose_kernel(const Program& program, int block_idx, const OpInfo& info, const OpDesc& op,
                       Place place);

}  // namespace skiff
