#include "skiff/runtime/kernel_choice.h"

#include "skiff/ops/op_error.h"

namespace skiff {

namespace {

DType kernel_dtype(const Program& program, int block_idx, const OpInfo& info, const OpDesc& op) {
  auto declared = [&](const std::string& name) -> const VarDesc* {
    return name.empty() ? nullptr : program.find_var(block_idx, name);
  };
  auto first_declared = [&](const std::vector<Slot>& slots) -> const VarDesc* {
    for (const auto& [slot, names] : slots)
      for (const auto& n : names)
        if (const VarDesc* v = declared(n)) return v;
    return nullptr;
  };
  const VarDesc* v = nullptr;
  if (!info.kernel_dtype_slot.empty()) {
    v = declared(op.first_input(info.kernel_dtype_slot));
  } else {
    v = first_declared(op.outputs);
    if (!v) v = first_declared(op.inputs);
  }
  if (!v) {
    fail(describe_op_error(program, block_idx, op,
                           "cannot choose a kernel: none of its variables is declared"));
  }
  return v->dtype;
}

std::string kernel_list(const OpInfo& info) {
  std::string s;
  for (const auto& [key, fn] : info.kernels) {
    if (!s.empty()) s += ", ";
    s += std::string(dtype_name(key.second)) + (key.first == DeviceType::kCPU ? "/cpu" : "/cuda");
  }
  return s.empty() ? "none" : s;
}

}  // namespace

KernelFn choose_kernel(const Program& program, int block_idx, const OpInfo& info, const OpDesc& op,
                       Place place) {
  DType dtype = kernel_dtype(program, block_idx, info, op);
  KernelFn kernel = info.find_kernel(place, dtype);
  if (!kernel) {
    fail(describe_op_error(program, block_idx, op,
                           str_cat("no kernel for ", dtype_name(dtype), " on ", place.str(),
                                   " (registered: ", kernel_list(info), ")")));
  }
  return kernel;
}

}  // namespace skiff
