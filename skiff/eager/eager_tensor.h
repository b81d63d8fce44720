// Eager mode's tensor: a value plus what the tape needs to differentiate through it.
// Ops called eagerly (op_call.h) make new EagerTensors and, when an input needs a
// gradient, a GradNode that remembers how to run the op's grad ops (backward.h).
//
//   auto x = make_tensor(Tensor::from_vector<float>({2}, {1, 2}));
//   x->stop_gradient = false;                 // a leaf that wants a gradient
//   auto y = EagerOp("tanh", {}).call({{x}})[0][0];
//   run_backward({y}, {});                    // x->grad now holds 1 - tanh(x)^2
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "skiff/core/variable.h"

namespace skiff::eager {

struct GradNode;
struct ViewGroup;

// A hook on a gradient (Tensor.register_hook): sees the gradient and returns the one to
// use instead, or an empty Variable to keep it.
using GradHook = std::function<Variable(const Variable& grad)>;

// Shared ownership throughout (Python holds them through std::shared_ptr too).
struct EagerTensor : std::enable_shared_from_this<EagerTensor> {
  EagerTensor() = default;
  EagerTensor(const EagerTensor&) = default;
  EagerTensor& operator=(const EagerTensor&) = default;
  // Frees its history through release_later (grad_node.h): never recursively.
  ~EagerTensor();

  Variable value;
  // True: no gradient flows into or through this tensor (the default for data).
  bool stop_gradient = true;
  // Parameters and buffers: saved by state dicts and jit.save.
  bool persistable = false;
  // Keep the gradient of a non-leaf tensor after backward (leaves always keep it).
  bool retain_grad = false;
  std::string name;
  // The accumulated gradient of a leaf (or a retained non-leaf), or nullptr.
  std::shared_ptr<EagerTensor> grad;
  // The recorded op that produced this tensor, and which of its outputs it is;
  // nullptr for leaves.
  std::shared_ptr<GradNode> grad_node;
  // Called by backward once it has accumulated all of this leaf's gradient of the pass
  // into `grad` (torch's post-accumulate-grad hooks): data-parallel training starts
  // reducing a gradient while the backward goes on. Keyed by registration id.
  std::map<int, std::function<void(EagerTensor&)>> grad_ready_hooks;
  // A leaf's gradient hooks, run in id order on the gradient one backward sends it
  // before it is added to `grad` (a non-leaf's live on its GradNode).
  std::map<int, GradHook> grad_hooks;
  // How many in-place writes this tensor has had (Paddle's inplace_version).
  int64_t inplace_version = 0;
  int out_slot = 0;
  int out_index = 0;
  // The tensors sharing this one's memory under other shapes (views.h).
  struct ViewLink {
    std::shared_ptr<ViewGroup> group;  // nullptr: a view of nothing
    // Membership belongs to the object: a copy is no member, an assigned tensor keeps its.
    ViewLink() = default;
    ViewLink(const ViewLink&) {}
    ViewLink& operator=(const ViewLink&) { return *this; }
  } views;

  bool is_leaf() const { return grad_node == nullptr; }
  // For messages: "tensor 'w'", or "an unnamed float32[2, 3] tensor".
  std::string describe() const;
  // The dense tensor held; throws when the value is something else or empty.
  const Tensor& dense() const;
  Tensor& mutable_dense();
};

using TensorPtr = std::shared_ptr<EagerTensor>;

// Registers `hook` on the gradient of `t` (on its history's node unless a leaf); returns
// the id remove_grad_hook takes.
int add_grad_hook(EagerTensor& t, GradHook hook);
void remove_grad_hook(EagerTensor& t, int id);

// A new tensor holding `value` (stop_gradient set, no history).
TensorPtr make_tensor(Tensor value);
TensorPtr make_tensor(Variable value);

// Whether eager ops record the tape; thread-local, on by default.
bool grad_enabled();
void set_grad_enabled(bool on);

// Turns recording off for a scope (skiff.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard() : previous_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace skiff::eager
