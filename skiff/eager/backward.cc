#include "skiff/eager/backward.h"

#include <deque>
#include <functional>
#include <unordered_map>

#include "skiff/eager/grad_node.h"
#include "skiff/eager/op_call.h"
#include "skiff/eager/var_type.h"
#include "skiff/kernels/cpu/accumulate.h"
#include "skiff/kernels/cpu/fill.h"
#include "skiff/ops/kernel_context.h"
#include "skiff/ops/op_error.h"
#include "skiff/ops/shape_context.h"
#include "skiff/runtime/kernel_choice.h"

namespace skiff::eager {

namespace {

// into += g. Dense values add in place (on a private copy when the storage is
// shared); selected rows go through the `sum` op, which merges them.
void accumulate(Variable* into, const Variable& g) {
  if (g.empty()) return;
  if (into->empty()) {
    *into = g;
    return;
  }
  if (into->is_tensor() && g.is_tensor()) {
    Tensor* acc = into->mutable_tensor();
    SKIFF_CHECK(acc->shape() == g.tensor()->shape() && acc->dtype() == g.tensor()->dtype(),
                "backward: gradients of one tensor disagree: ", acc->type_str(), " and ",
                g.tensor()->type_str());
    if (acc->is_zeros_view()) {  // a gradient cleared to zero: 0 + g is g
      *acc = *g.tensor();
      return;
    }
    acc->resize(acc->shape(), acc->dtype());  // a private copy if shared
    kernels::add_inplace(*g.tensor(), acc);
    return;
  }
  static EagerOp sum("sum", AttrMap{});
  NoGradGuard no_grad;
  TensorPtr out = sum.call({{make_tensor(*into), make_tensor(g)}})[0][0];
  *into = out->value;
}

// `g` passed through `hooks` in id order (a hook returning nothing keeps it).
Variable run_grad_hooks(const std::map<int, GradHook>& hooks, Variable g) {
  for (const auto& [id, hook] : hooks) {
    Variable changed = hook(g);
    if (changed.empty()) continue;
    SKIFF_CHECK(changed.is_tensor() && g.is_tensor() &&
                    changed.tensor()->shape() == g.tensor()->shape() &&
                    changed.tensor()->dtype() == g.tensor()->dtype(),
                "backward: a gradient hook returned ",
                changed.is_tensor() ? changed.tensor()->type_str() : "a non-dense value",
                " for a gradient of ", g.is_tensor() ? g.tensor()->type_str() : "selected rows");
    g = std::move(changed);
  }
  return g;
}

Variable filled(const Shape& shape, DType dtype, double value) {
  Variable v;
  kernels::fill_constant(shape, dtype, value, v.mutable_tensor());
  return v;
}

// The grad ops' kernels for the types of the values they start from.
const std::vector<KernelFn>& kernels_for(GradTemplate& t, const std::vector<Variable>& locals) {
  std::string key;
  for (int idx : t.saved) append_type_key(locals[idx], &key);
  for (int j : t.out_grads_read) append_type_key(locals[t.out_grad_index(j)], &key);
  for (const auto& [k, fns] : t.kernels)
    if (k == key) return fns;

  Program scratch;
  Block& block = scratch.global_block();
  for (int idx : t.saved) block.add_var(describe_value(t.names[idx], locals[idx]));
  for (int j : t.out_grads_read) {
    int idx = t.out_grad_index(j);
    block.add_var(describe_value(t.names[idx], locals[idx]));
  }
  std::vector<KernelFn> fns;
  for (const OpDesc& op : t.ops) {
    block.ops.push_back(op);
    const OpInfo& info = OpRegistry::global().get(op.type);
    infer_op_shape(scratch, 0, block.ops.back());
    fns.push_back(choose_kernel(scratch, 0, info, block.ops.back(), cpu_place()));
  }
  t.kernels.emplace_back(key, std::move(fns));
  return t.kernels.back().second;
}

// Runs one node's grad ops; returns the gradient of each flat input (empty where
// none is wanted or produced).
std::vector<Variable> run_callback(GradNode& node, std::vector<Variable>& out_grads) {
  std::vector<Variable> in_grads = node.callback->run(out_grads);
  SKIFF_CHECK(in_grads.size() == node.inputs.size(), "backward of ", node.label(), ": returned ",
              in_grads.size(), " gradients for ", node.inputs.size(), " inputs");
  for (size_t i = 0; i < in_grads.size(); ++i) {
    const Edge& e = node.inputs[i];
    if (!e.tensor || in_grads[i].empty() || !in_grads[i].is_tensor()) continue;
    const Tensor& want = e.tensor->dense();
    const Tensor& got = *in_grads[i].tensor();
    SKIFF_CHECK(got.shape() == want.shape() && got.dtype() == want.dtype(), "backward of ",
                node.label(), ": the gradient of input ", i, " is ", got.type_str(),
                ", but the input is ", want.type_str());
  }
  return in_grads;
}

std::vector<Variable> run_node(GradNode& node, std::vector<Variable>& out_grads) {
  SKIFF_CHECK(!node.released, "backward through ", node.label(),
              " a second time: the first backward freed the values it saved (pass "
              "retain_graph=True to the first backward to keep them)");
  if (node.callback) return run_callback(node, out_grads);
  GradTemplate& t = *node.grad;
  std::vector<Variable> locals(t.names.size());
  if (node.hooks) {
    for (size_t k = 0; k < t.saved.size(); ++k) {
      Variable v = node.hooks->unpack(node.packed[k]);
      const Tensor* d = v.tensor();
      const auto& [shape, dtype] = node.packed_types[k];
      SKIFF_CHECK(d && d->shape() == shape && d->dtype() == dtype, "backward of ", node.label(),
                  ": an unpack hook gave ", d ? d->type_str() : std::string("no dense value"),
                  " for a saved ", dtype_name(dtype), shape, " value");
      locals[t.saved[k]] = std::move(v);
    }
  } else {
    for (size_t k = 0; k < t.saved.size(); ++k) locals[t.saved[k]] = node.saved[k];
  }
  for (int j : t.out_grads_read) {
    if (out_grads[j].empty())
      out_grads[j].set(Tensor::zeros_view(node.outputs[j].first, node.outputs[j].second));
    locals[t.out_grad_index(j)] = out_grads[j];
  }
  const std::vector<KernelFn>& kernels = kernels_for(t, locals);
  for (size_t k = 0; k < t.ops.size(); ++k) {
    KernelContext ctx(&t.ops[k]);
    auto bind = [&](const std::vector<std::vector<int>>& idx, auto* vars) {
      for (const auto& slot : idx) {
        vars->emplace_back();
        for (int i : slot) vars->back().push_back(i < 0 ? nullptr : &locals[i]);
      }
    };
    bind(t.op_inputs[k], &ctx.inputs);
    bind(t.op_outputs[k], &ctx.outputs);
    try {
      kernels[k](ctx);
    } catch (const Error& e) {
      e.rethrow_with(describe_kernel_error(ctx, e.what()) + " (in the backward of op '" +
                     t.fwd->type + "')");
    }
  }
  std::vector<Variable> in_grads(t.num_in);
  for (int i = 0; i < t.num_in; ++i)
    if (t.in_grad[i] >= 0) in_grads[i] = std::move(locals[t.in_grad[i]]);
  return in_grads;
}

struct NodeState {
  std::vector<Variable> out_grads;  // per flat output, summed as they arrive
  int pending = 0;                  // consumers in the walk not yet run
};

// Where the gradient of a leaf (or a captured tensor) goes.
using Sink = std::function<void(const TensorPtr&, const Variable&)>;

// The walk shared by backward and grad: seeds the roots, then runs every node
// once all its consumers have run. `on_ready(node, out_grads)` sees each node's
// complete output gradients before it runs. With `leaf_hooks`, a leaf's
// grad_ready_hooks run once the last of its gradients has gone to `leaf_sink`.
void walk(const std::vector<TensorPtr>& roots, const std::vector<TensorPtr>& grads,
          bool retain_graph, const Sink& leaf_sink, const Sink& retained_sink,
          const std::function<void(GradNode*, const std::vector<Variable>&)>& on_ready,
          bool leaf_hooks = false) {
  SKIFF_CHECK(grads.empty() || grads.size() == roots.size(), "backward: ", grads.size(),
              " gradients for ", roots.size(), " tensors");
  std::unordered_map<GradNode*, NodeState> states;
  // Leaves with hooks: how many gradients they still wait for; those with gradient
  // hooks collect their gradient here and pass it through the hooks once complete.
  std::unordered_map<EagerTensor*, int> leaf_pending;
  std::unordered_map<EagerTensor*, Variable> leaf_collected;
  auto count_leaf = [&](const TensorPtr& t) {
    if (leaf_hooks && (!t->grad_ready_hooks.empty() || !t->grad_hooks.empty()))
      leaf_pending[t.get()]++;
  };
  auto send_to_leaf = [&](const TensorPtr& t, const Variable& g) {
    if (leaf_hooks && !t->grad_hooks.empty()) {
      accumulate(&leaf_collected[t.get()], g);
    } else {
      leaf_sink(t, g);
    }
  };
  auto leaf_done = [&](const TensorPtr& t) {
    if (leaf_pending.empty()) return;
    auto it = leaf_pending.find(t.get());
    if (it == leaf_pending.end() || --it->second > 0) return;
    leaf_pending.erase(it);
    auto collected = leaf_collected.find(t.get());
    if (collected != leaf_collected.end()) {
      Variable g = run_grad_hooks(std::map(t->grad_hooks), std::move(collected->second));
      leaf_collected.erase(collected);
      if (!g.empty()) leaf_sink(t, g);
    }
    for (auto& [id, hook] : std::map(t->grad_ready_hooks)) hook(*t);
  };
  std::vector<GradNode*> stack;
  auto visit = [&](GradNode* node) {
    auto [it, fresh] = states.try_emplace(node);
    if (fresh) {
      it->second.out_grads.resize(node->outputs.size());
      stack.push_back(node);
    }
  };
  for (const TensorPtr& r : roots)
    if (r->grad_node) visit(r->grad_node.get());
  while (!stack.empty()) {
    GradNode* node = stack.back();
    stack.pop_back();
    for (const Edge& e : node->inputs) {
      if (!e.node) {
        if (e.tensor) count_leaf(e.tensor);
        continue;
      }
      visit(e.node.get());
      states[e.node.get()].pending++;
    }
  }

  for (size_t r = 0; r < roots.size(); ++r) {
    const TensorPtr& root = roots[r];
    SKIFF_CHECK(!root->stop_gradient, "backward: ", root->describe(),
                " has stop_gradient=True, so nothing it depends on gets a gradient");
    const Tensor& value = root->dense();
    Variable seed;
    if (!grads.empty() && grads[r]) {
      const Tensor& g = grads[r]->dense();
      SKIFF_CHECK(g.shape() == value.shape() && g.dtype() == value.dtype(),
                  "backward: the gradient given for ", value.type_str(), " is ", g.type_str());
      seed.set(g);
    } else {
      seed = filled(value.shape(), value.dtype(), 1.0);
    }
    if (root->grad_node) {
      if (root->retain_grad) retained_sink(root, seed);
      NodeState& st = states[root->grad_node.get()];
      accumulate(&st.out_grads[root->grad_node->flat_output(root->out_slot, root->out_index)],
                 seed);
    } else {
      count_leaf(root);
      send_to_leaf(root, seed);
      leaf_done(root);
    }
  }

  std::deque<GradNode*> ready;
  for (auto& [node, st] : states)
    if (st.pending == 0) ready.push_back(node);
  while (!ready.empty()) {
    GradNode* node = ready.front();
    ready.pop_front();
    NodeState& st = states[node];
    for (auto& [flat, hooks] : std::map(node->output_hooks))
      if (!st.out_grads[flat].empty())
        st.out_grads[flat] = run_grad_hooks(hooks, std::move(st.out_grads[flat]));
    on_ready(node, st.out_grads);
    std::vector<Variable> in_grads = run_node(*node, st.out_grads);
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const Edge& e = node->inputs[i];
      if (!e.tensor) continue;
      if (!e.node) {
        if (!in_grads[i].empty()) send_to_leaf(e.tensor, in_grads[i]);
        leaf_done(e.tensor);
        continue;
      }
      // (a tensor written since keeps its retained gradient for its newer history)
      if (e.tensor->retain_grad && e.tensor->grad_node == e.node && !in_grads[i].empty())
        retained_sink(e.tensor, in_grads[i]);
      NodeState& producer = states[e.node.get()];
      accumulate(&producer.out_grads[e.node->flat_output(e.slot, e.index)], in_grads[i]);
      if (--producer.pending == 0) ready.push_back(e.node.get());
    }
    st.out_grads.clear();
    if (!retain_graph) {
      node->saved.clear();
      node->packed.clear();
      // The inputs were kept to route their gradients; a released node routes none, and
      // holding them would keep every activation alive as long as the loss is.
      for (Edge& e : node->inputs) e.tensor.reset();
      node->released = true;
      if (node->callback && node->callback->release) node->callback->release();
    }
  }
}

void add_to_grad(const TensorPtr& t, const Variable& g) {
  if (!t->grad) {
    t->grad = make_tensor(g);
    t->grad->name = t->name.empty() ? "" : grad_name(t->name);
    return;
  }
  accumulate(&t->grad->value, g);
}

}  // namespace

namespace {

// The callbacks queued during the backward this thread runs (nullptr: none runs).
thread_local std::vector<std::function<void()>>* backward_callbacks = nullptr;

}  // namespace

void queue_backward_callback(std::function<void()> fn) {
  if (backward_callbacks) {
    backward_callbacks->push_back(std::move(fn));
  } else {
    fn();
  }
}

void run_backward(const std::vector<TensorPtr>& roots, const std::vector<TensorPtr>& grads,
                  bool retain_graph) {
  NoGradGuard no_grad;
  std::vector<std::function<void()>> callbacks;
  std::vector<std::function<void()>>* outer = backward_callbacks;
  backward_callbacks = &callbacks;
  try {
    walk(
        roots, grads, retain_graph, add_to_grad, add_to_grad,
        [](GradNode*, const std::vector<Variable>&) {}, /*leaf_hooks=*/true);
  } catch (...) {
    backward_callbacks = outer;
    throw;
  }
  backward_callbacks = outer;
  for (const std::function<void()>& fn : callbacks) fn();
}

std::vector<TensorPtr> compute_grads(const std::vector<TensorPtr>& roots,
                                     const std::vector<TensorPtr>& inputs,
                                     const std::vector<TensorPtr>& grads, bool retain_graph,
                                     bool allow_unused) {
  NoGradGuard no_grad;
  std::unordered_map<const EagerTensor*, Variable> captured;
  auto capture_leaf = [&](const TensorPtr& t, const Variable& g) {
    for (const TensorPtr& in : inputs)
      if (in.get() == t.get()) accumulate(&captured[t.get()], g);
  };
  auto on_ready = [&](GradNode* node, const std::vector<Variable>& out_grads) {
    for (const TensorPtr& in : inputs) {
      if (in->grad_node.get() != node) continue;
      const Variable& g = out_grads[node->flat_output(in->out_slot, in->out_index)];
      if (!g.empty()) captured[in.get()] = g;
    }
  };
  walk(
      roots, grads, retain_graph, capture_leaf, [](const TensorPtr&, const Variable&) {}, on_ready);
  std::vector<TensorPtr> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = captured.find(inputs[i].get());
    if (it == captured.end() || it->second.empty()) {
      SKIFF_CHECK(allow_unused, "grad: input ", i, " (", inputs[i]->describe(),
                  ") is not reached from the outputs (pass allow_unused=True to get None)");
      out.push_back(nullptr);
      continue;
    }
    out.push_back(make_tensor(it->second));
  }
  return out;
}

}  // namespace skiff::eager
