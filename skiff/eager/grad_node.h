// The tape's records: for each eagerly called op that an input wanted a gradient
// through, the grad ops its grad maker made (one GradTemplate per op form and set of
// wanted inputs, shared by every call) and the values they read (one GradNode per call).
// A node may instead hold a callback (a user-defined backward, e.g. a Python PyLayer).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "skiff/eager/eager_tensor.h"
#include "skiff/eager/saved_hooks.h"
#include "skiff/ir/program.h"
#include "skiff/ops/registry.h"

namespace skiff::eager {

struct GradTemplate {
  std::shared_ptr<const OpDesc> fwd;
  const OpInfo* info = nullptr;
  std::vector<OpDesc> ops;  // made by the op's grad maker
  // Every variable the grad ops touch: the forward inputs, the forward outputs, the
  // outputs' gradients (all flattened, in that order), then the grad ops' own.
  std::vector<std::string> names;
  int num_in = 0;
  int num_out = 0;
  std::vector<int> saved;           // indices of the forward values the grad ops read
  std::vector<int> out_grads_read;  // flat outputs whose gradient the grad ops read
  std::vector<int> in_grad;         // per flat input: index of its gradient, or -1
  // Per grad op, per slot, per entry: the variable's index in `names` (-1: empty).
  std::vector<std::vector<std::vector<int>>> op_inputs, op_outputs;
  // Chosen kernels of the grad ops, by the dtypes of the values they start from.
  std::vector<std::pair<std::string, std::vector<KernelFn>>> kernels;

  int out_grad_index(int flat_output) const { return num_in + num_out + flat_output; }
};

// Makes the grad ops of `fwd` for the inputs flagged in `wants` (flat order).
std::shared_ptr<GradTemplate> make_grad_template(std::shared_ptr<const OpDesc> fwd,
                                                 const OpInfo& info,
                                                 const std::vector<bool>& wants);

struct GradNode;

// Where the gradient of a recorded op's input goes: the tensor and, as they were when
// the op ran, the node that produced it and which of its outputs it was. A later write
// into the tensor (an op's `out`) gives the tensor a new history without changing this.
struct Edge {
  TensorPtr tensor;                // nullptr: the input wants no gradient
  std::shared_ptr<GradNode> node;  // nullptr: a leaf, whose gradient goes to tensor->grad
  int slot = 0;
  int index = 0;
};

// A user-defined backward: given the gradient of each flat output (empty where none
// arrived), returns one gradient per flat input (empty: none). It may keep what it
// needs; `release` (optional) drops that after a backward without retain_graph.
struct GradCallback {
  std::function<std::vector<Variable>(const std::vector<Variable>& out_grads)> run;
  std::function<void()> release;
  std::string label;  // names the node in errors, e.g. "PyLayer 'Exp'"
};

struct GradNode {
  std::shared_ptr<GradTemplate> grad;  // nullptr for a callback node
  std::shared_ptr<GradCallback> callback;
  std::vector<Variable> saved;  // parallel to grad->saved
  // Recorded under saved-value hooks (saved_hooks.h): the packed values instead of
  // `saved`, the shape and dtype each had, and the hooks that unpack them.
  std::shared_ptr<const SavedValueHooks> hooks;
  std::vector<std::shared_ptr<void>> packed;
  std::vector<std::pair<Shape, DType>> packed_types;
  std::vector<Edge> inputs;  // per flat input
  // Per flat output: its shape and dtype (a gradient nobody sent is zeros of it).
  std::vector<std::pair<Shape, DType>> outputs;
  std::vector<int> out_offsets;  // first flat output of each output slot
  bool released = false;         // saved values dropped after a backward
  // Hooks on the gradients of outputs (Tensor.register_hook on a non-leaf): per flat
  // output, by id; run on its complete gradient before the node's grad ops.
  std::map<int, std::map<int, GradHook>> output_hooks;

  GradNode() = default;
  // Hands the nodes of its inputs to release_later: a chain is freed without recursion.
  ~GradNode();
  GradNode(const GradNode&) = delete;
  GradNode& operator=(const GradNode&) = delete;

  int flat_output(int slot, int index) const { return out_offsets[slot] + index; }
  // The forward op's type, or the callback's label.
  std::string label() const;
};

// Drops a reference to `node`; when that frees it, the nodes it held are freed by a loop
// rather than by destructors calling one another, so a chain of any length (a loop of
// 200,000 eager ops) is freed without overflowing the stack. Tensors and nodes call it
// for the nodes they hold.
void release_later(std::shared_ptr<GradNode> node);

// Records a callback node: `outputs` (one slot) get it as their history, and their
// gradients reach those of `inputs` that want one (not stop_gradient, floating).
// Outputs that are not floating stay without history. Returns the node.
std::shared_ptr<GradNode> record_callback_node(const std::vector<TensorPtr>& inputs,
                                               const std::vector<TensorPtr>& outputs,
                                               std::shared_ptr<GradCallback> callback);

}  // namespace skiff::eager
