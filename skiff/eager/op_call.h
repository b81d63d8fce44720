// Calling registered ops eagerly: the same kernels the interpreter runs, on tensors
// held by the caller, with the tape recorded for backward when an input wants a
// gradient. An EagerOp is one op type with fixed attributes; callers (the Python
// binding) keep one per attribute set and call it many times.
//
//   EagerOp matmul("matmul", attrs_with("transpose_y", true));
//   TensorPtr y = matmul.call({{x}, {w}})[0][0];     // inputs in schema slot order
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skiff/eager/eager_tensor.h"
#include "skiff/ir/program.h"
#include "skiff/ops/registry.h"

namespace skiff::eager {

struct GradTemplate;

// Tensors by slot: one list per slot of the op's schema, in schema order.
using SlotTensors = std::vector<std::vector<TensorPtr>>;

class EagerOp {
 public:
  // `attrs` sets attributes by name (the others take their defaults); an unknown
  // name or a missing required attribute throws. `output_counts` gives the entries
  // of each output slot in schema order (default: one each; 0 leaves an optional
  // output absent; duplicable outputs such as split's must be given).
  EagerOp(const std::string& type, AttrMap attrs, std::vector<int> output_counts = {});
  ~EagerOp();
  EagerOp(const EagerOp&) = delete;
  EagerOp& operator=(const EagerOp&) = delete;

  // Runs the op on `inputs` (an empty list leaves an optional slot absent) and
  // returns its outputs, recording the tape when grad mode is on and an input wants
  // a gradient. Errors name the op, its inputs' types and the problem.
  SlotTensors call(const SlotTensors& inputs);
  // Like call, writing into the tensors of `outputs` where given (nullptr entries get
  // new tensors): in-place updates such as an optimizer step writing its parameter.
  SlotTensors call_into(const SlotTensors& inputs, const SlotTensors& outputs);
  // call_into writing the outputs into `result`, whose lists keep their capacity
  // from call to call (the binding's hot path).
  void run(const SlotTensors& inputs, const SlotTensors& outputs, SlotTensors* result);

  const OpInfo& info() const { return *info_; }
  const std::string& type() const { return info_->schema.type; }
  const AttrMap& attrs() const { return attrs_; }
  const std::vector<int>& output_counts() const { return output_counts_; }

  // One form of the op per number of entries in each input slot.
  struct Form;

 private:
  Form& form_for(const SlotTensors& inputs);

  const OpInfo* info_;
  AttrMap attrs_;
  std::vector<int> output_counts_;
  std::vector<std::unique_ptr<Form>> forms_;
};

}  // namespace skiff::eager
