#include "skiff/ops/kernel_context.h"

#include <cstring>

namespace skiff {

namespace {

int slot_index(const std::vector<Slot>& slots, const char* name) {
  for (size_t i = 0; i < slots.size(); ++i)
    if (std::strcmp(slots[i].first.c_str(), name) == 0) return static_cast<int>(i);
  return -1;
}

Variable* entry(const std::vector<std::vector<Variable*>>& vars, int slot, int i) {
  if (slot < 0 || i < 0 || i >= static_cast<int>(vars[slot].size())) return nullptr;
  return vars[slot][i];
}

}  // namespace

Variable* KernelContext::in_var(const char* slot, int i) const {
  return entry(inputs, slot_index(op_->inputs, slot), i);
}

Variable* KernelContext::out_var(const char* slot, int i) const {
  return entry(outputs, slot_index(op_->outputs, slot), i);
}

bool KernelContext::has_in(const char* slot, int i) const {
  const Variable* v = in_var(slot, i);
  return v && v->tensor() && v->tensor()->initialized();
}

const Tensor& KernelContext::in(const char* slot, int i) const {
  const Variable* v = in_var(slot, i);
  if (!v || !v->tensor() || !v->tensor()->initialized()) {
    int s = slot_index(op_->inputs, slot);
    const char* name = (s >= 0 && i < static_cast<int>(op_->inputs[s].second.size()))
                           ? op_->inputs[s].second[i].c_str()
                           : "";
    fail("input ", slot, "[", i, "] ('", name, "') has no value: it was neither fed nor computed",
         " before this op");
  }
  return *v->tensor();
}

Tensor* KernelContext::out(const char* slot, int i) {
  Variable* v = out_var(slot, i);
  return v ? v->mutable_tensor() : nullptr;
}

int KernelContext::in_count(const char* slot) const {
  int s = slot_index(op_->inputs, slot);
  return s < 0 ? 0 : static_cast<int>(inputs[s].size());
}

int KernelContext::out_count(const char* slot) const {
  int s = slot_index(op_->outputs, slot);
  return s < 0 ? 0 : static_cast<int>(outputs[s].size());
}

}  // namespace skiff
