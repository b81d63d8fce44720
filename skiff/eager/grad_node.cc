#include "skiff/eager/grad_node.h"

#include <set>
#include <unordered_map>

#include "skiff/ops/grad_context.h"

namespace skiff::eager {

std::shared_ptr<GradTemplate> make_grad_template(std::shared_ptr<const OpDesc> fwd,
                                                 const OpInfo& info,
                                                 const std::vector<bool>& wants) {
  auto t = std::make_shared<GradTemplate>();
  t->fwd = fwd;
  t->info = &info;
  std::vector<std::string> ins = fwd->input_names(), outs = fwd->output_names();
  t->num_in = static_cast<int>(ins.size());
  t->num_out = static_cast<int>(outs.size());
  std::unordered_map<std::string, int> index;
  auto add_name = [&](const std::string& n) {
    auto [it, fresh] = index.emplace(n, static_cast<int>(t->names.size()));
    if (fresh) t->names.push_back(n);
    return it->second;
  };
  for (const auto& n : ins) add_name(n);
  for (const auto& n : outs) add_name(n);
  for (const auto& n : outs) add_name(grad_name(n));

  std::set<std::string> wanted;
  for (size_t i = 0; i < ins.size(); ++i)
    if (wants[i]) wanted.insert(ins[i]);
  GradContext g(*fwd, [&](const std::string& n) { return wanted.count(n) > 0; });
  info.grad(g);
  t->ops = std::move(g.ops());

  std::set<int> saved, out_grads_read;
  auto resolve = [&](const std::vector<Slot>& slots, bool reads) {
    std::vector<std::vector<int>> idx;
    for (const auto& [slot, names] : slots) {
      idx.emplace_back();
      for (const auto& n : names) {
        int k = n.empty() ? -1 : add_name(n);
        idx.back().push_back(k);
        if (!reads || k < 0) continue;
        if (k < t->num_in + t->num_out) saved.insert(k);
        if (k >= t->num_in + t->num_out && k < t->num_in + 2 * t->num_out)
          out_grads_read.insert(k - t->num_in - t->num_out);
      }
    }
    return idx;
  };
  for (OpDesc& op : t->ops) {
    fill_default_attrs(op);
    t->op_inputs.push_back(resolve(op.inputs, true));
    t->op_outputs.push_back(resolve(op.outputs, false));
  }
  t->saved.assign(saved.begin(), saved.end());
  t->out_grads_read.assign(out_grads_read.begin(), out_grads_read.end());
  for (size_t i = 0; i < ins.size(); ++i) {
    auto it = index.find(grad_name(ins[i]));
    t->in_grad.push_back(wants[i] && it != index.end() ? it->second : -1);
  }
  return t;
}

namespace {

// Nodes waiting to be freed by the release_later loop running on this thread.
thread_local std::vector<std::shared_ptr<GradNode>> t_pending;
thread_local bool t_releasing = false;

}  // namespace

void release_later(std::shared_ptr<GradNode> node) {
  if (!node) return;
  if (t_releasing) {  // an outer call's loop frees it
    t_pending.push_back(std::move(node));
    return;
  }
  t_releasing = true;
  t_pending.push_back(std::move(node));
  while (!t_pending.empty()) {
    std::shared_ptr<GradNode> next = std::move(t_pending.back());
    t_pending.pop_back();
    next.reset();  // may free the node, whose destructor hands its inputs' nodes back here
  }
  t_releasing = false;
}

GradNode::~GradNode() {
  for (Edge& e : inputs) release_later(std::move(e.node));
}

std::string GradNode::label() const {
  if (callback) return callback->label;
  return "op '" + grad->fwd->type + "'";
}

std::shared_ptr<GradNode> record_callback_node(const std::vector<TensorPtr>& inputs,
                                               const std::vector<TensorPtr>& outputs,
                                               std::shared_ptr<GradCallback> callback) {
  SKIFF_CHECK(callback && callback->run, "record_callback_node: no callback given");
  auto node = std::make_shared<GradNode>();
  node->callback = std::move(callback);
  node->out_offsets = {0};
  for (const TensorPtr& t : inputs) {
    SKIFF_CHECK(t, node->label(), ": an input is null");
    const Tensor* d = t->value.tensor();
    bool wants = !t->stop_gradient && d && is_differentiable(d->dtype());
    node->inputs.push_back(wants ? Edge{t, t->grad_node, t->out_slot, t->out_index} : Edge{});
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorPtr& t = outputs[i];
    SKIFF_CHECK(t, node->label(), ": output ", i, " is null");
    const Tensor* d = t->value.tensor();
    node->outputs.emplace_back(d ? d->shape() : Shape{}, d ? d->dtype() : DType::kF32);
    if (!d || !is_differentiable(d->dtype())) continue;
    t->stop_gradient = false;
    t->grad_node = node;
    t->out_slot = 0;
    t->out_index = static_cast<int>(i);
  }
  return node;
}

}  // namespace skiff::eager
