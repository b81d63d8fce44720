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

#include <string>
#include <vector>

#include "skiff/core/variable.h"
#include "skiff/ir/program.h"

namespace skiff {

class KernelContext {
 public:
  explicit KernelContext(const OpDesc* op) : op_(op) {}

  // The dense tensor of input `slot`[i]; throws if absent or not yet computed.
  const Tensor& in(const char* slot, int i = 0) const;
  // True when input `slot`[i] exists and holds an initialized tensor.
  bool has_in(const char* slot, int i = 0) const;
  // The output tensor to write; nullptr when the slot is absent or its name empty
  // (a gradient nobody needs).
  Tensor* out(const char* slot, int i = 0);
  // The variables behind a slot entry (any kind), or nullptr.
  Variable* in_var(const char* slot, int i = 0) const;
  Variable* out_var(const char* slot, int i = 0) const;
  int in_count(const char* slot) const;
  int out_count(const char* slot) const;

  template <typename T>
  T attr(const char* name) const { return op_->attr<T>(name); }
  const OpDesc& op() const { return *op_; }

  // Set by the executor: variables in the order of op().inputs / op().outputs.
  std::vector<std::vector<Variable*>> inputs;
  std::vector<std::vector<Variable*>> outputs;

 private:
  const OpDesc* op_;
};

}  // namespace skiff
