#include "skiff/ops/op_error.h"

#include "skiff/ops/kernel_context.h"

namespace skiff {

namespace {

std::string header(const OpDesc& op) {
  std::string s = "op '" + op.type + "'";
  std::string src = op.source();
  if (!src.empty()) s += " (created at " + src + ")";
  return s;
}

template <typename Describe>
std::string list_slots(const std::vector<Slot>& slots, Describe describe) {
  std::string s;
  for (const auto& [slot, names] : slots) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) continue;
      if (!s.empty()) s += ", ";
      // (eager ops name their inputs after their slots: "X", not "X=X")
      s += (names[i] == slot ? slot : slot + "=" + names[i]) + " " + describe(names[i], i, slot);
    }
  }
  return s.empty() ? "none" : s;
}

std::string var_type(const Variable* v) {
  if (!v || v->empty()) return "(no value)";
  if (const Tensor* t = v->tensor()) return t->initialized() ? t->type_str() : "(no value)";
  if (const TensorArray* a = v->array()) return "tensor_array[" + std::to_string(a->size()) + "]";
  if (v->is_selected_rows()) return "selected_rows";
  return "step_scopes";
}

}  // namespace

std::string describe_op_error(const Program& program, int block_idx, const OpDesc& op,
                              const std::string& what) {
  auto describe = [&](const std::string& name, size_t, const std::string&) -> std::string {
    const VarDesc* v = program.find_var(block_idx, name);
    if (!v) return "(undeclared)";
    return std::string(dtype_name(v->dtype)) + v->shape.str();
  };
  const std::string where = block_idx > 0 ? " in block " + std::to_string(block_idx) : "";
  return header(op) + where + ", inputs: " + list_slots(op.inputs, describe) + ": " + what;
}

std::string describe_kernel_error(const KernelContext& ctx, const std::string& what) {
  const OpDesc& op = ctx.op();
  auto in = [&](const std::string&, size_t i, const std::string& slot) {
    return var_type(ctx.in_var(slot.c_str(), static_cast<int>(i)));
  };
  return header(op) + ", inputs: " + list_slots(op.inputs, in) + ": " + what;
}

}  // namespace skiff
