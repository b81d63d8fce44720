#include "skiff/ops/kernel_context.h"

namespace skiff {

int KernelContext::in_count(const char* slot) const {
  int s = slot_index(op_->inputs, slot);
  return s < 0 ? 0 : static_cast<int>(inputs[s].size());
}

int KernelContext::out_count(const char* slot) const {
  int s = slot_index(op_->outputs, slot);
  return s < 0 ? 0 : static_cast<int>(outputs[s].size());
}

void KernelContext::missing_input(const char* slot, int i) const {
  int s = slot_index(op_->inputs, slot);
  const char* name = (s >= 0 && i < static_cast<int>(op_->inputs[s].second.size()))
                         ? op_->inputs[s].second[i].c_str()
                         : "";
  fail("input ", slot, "[", i, "] ('", name, "') has no value: it was neither fed nor computed",
       " before this op");
}

void KernelContext::missing_rows(const char* slot, int i) const {
  const Variable* v = in_var(slot, i);
  if (!v || v->empty()) missing_input(slot, i);
  const int s = slot_index(op_->inputs, slot);
  fail("input ", slot, "[", i, "] ('", op_->inputs[s].second[i], "') holds ",
       v->is_tensor() ? "a dense tensor" : "a value of another kind", ", not selected rows");
}

}  // namespace skiff
