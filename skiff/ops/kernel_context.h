// What a kernel sees of its op at run time: its input and output variables by slot,
// and its attributes. The executor builds one per instruction at prepare time, so a
// kernel call costs a slot lookup over a handful of names and nothing more.
//
//   void tanh_kernel(KernelContext& ctx) {
//     const Tensor& x = ctx.in("X");
//     Tensor* out = ctx.out("Out");
//     out->resize(x.shape(), x.dtype());
//     ...
//   }
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "skiff/core/variable.h"
#include "skiff/ir/program.h"

namespace skiff {

class KernelContext {
 public:
  explicit KernelContext(const OpDesc* op) : op_(op) {}

  // The dense tensor of input `slot`[i]; throws if absent or not yet computed.
  [[gnu::always_inline]] const Tensor& in(const char* slot, int i = 0) const {
    const Variable* v = in_var(slot, i);
    const Tensor* t = v ? v->tensor() : nullptr;
    if (__builtin_expect(!t || !t->initialized(), 0)) missing_input(slot, i);
    return *t;
  }
  // True when input `slot`[i] exists and holds an initialized tensor.
  bool has_in(const char* slot, int i = 0) const {
    const Variable* v = in_var(slot, i);
    return v && v->tensor() && v->tensor()->initialized();
  }
  // The input when has_in, else nullptr (an optional input).
  const Tensor* in_or_null(const char* slot, int i = 0) const {
    return has_in(slot, i) ? &in(slot, i) : nullptr;
  }
  // True when output `slot`[i] names a variable (see out()).
  bool has_out(const char* slot, int i = 0) const { return out_var(slot, i) != nullptr; }
  // The output tensor to write; nullptr when the slot is absent or its name empty
  // (a gradient nobody needs).
  [[gnu::always_inline]] Tensor* out(const char* slot, int i = 0) {
    Variable* v = out_var(slot, i);
    return v ? v->mutable_tensor() : nullptr;
  }
  // The variables behind a slot entry (any kind), or nullptr.
  [[gnu::always_inline]] Variable* in_var(const char* slot, int i = 0) const {
    return entry(inputs, slot_index(op_->inputs, slot), i);
  }
  [[gnu::always_inline]] Variable* out_var(const char* slot, int i = 0) const {
    return entry(outputs, slot_index(op_->outputs, slot), i);
  }
  int in_count(const char* slot) const;
  int out_count(const char* slot) const;
  // True when input `slot`[i] holds selected rows (a sparse gradient).
  bool in_is_rows(const char* slot, int i = 0) const {
    const Variable* v = in_var(slot, i);
    return v && v->selected_rows();
  }
  // The selected rows of input `slot`[i]; throws if absent or of another kind.
  const SelectedRows& rows_in(const char* slot, int i = 0) const {
    const Variable* v = in_var(slot, i);
    const SelectedRows* rows = v ? v->selected_rows() : nullptr;
    if (__builtin_expect(!rows, 0)) missing_rows(slot, i);
    return *rows;
  }
  // The selected rows to write to output `slot`[i]; nullptr when the slot is absent.
  SelectedRows* rows_out(const char* slot, int i = 0) {
    Variable* v = out_var(slot, i);
    return v ? v->mutable_selected_rows() : nullptr;
  }

  template <typename T>
  T attr(const char* name) const {
    return op_->attr<T>(name);
  }
  // A list attr by reference (no copy); T is its exact stored type.
  template <typename T>
  const T& attr_ref(const char* name) const {
    return op_->attr_ref<T>(name);
  }
  const OpDesc& op() const { return *op_; }

  // Set by the executor: variables in the order of op().inputs / op().outputs.
  std::vector<std::vector<Variable*>> inputs;
  std::vector<std::vector<Variable*>> outputs;

 private:
  // Inline so that comparisons with a kernel's literal slot names fold to a length
  // compare and a load (name_is).
  [[gnu::always_inline]] static int slot_index(const std::vector<Slot>& slots, const char* name) {
    for (size_t i = 0; i < slots.size(); ++i)
      if (name_is(slots[i].first, name)) return static_cast<int>(i);
    return -1;
  }
  static Variable* entry(const std::vector<std::vector<Variable*>>& vars, int slot, int i) {
    if (slot < 0 || i < 0 || i >= static_cast<int>(vars[slot].size())) return nullptr;
    return vars[slot][i];
  }
  [[noreturn]] void missing_input(const char* slot, int i) const;
  [[noreturn]] void missing_rows(const char* slot, int i) const;

  const OpDesc* op_;
};

}  // namespace skiff
