#include "skiff/autodiff/backward.h"

#include <algorithm>

#include "skiff/autodiff/block_grad.h"
#include "skiff/ops/grad_context.h"
#include "skiff/ops/op_error.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {
namespace autodiff {

namespace {

// A loop or branch, whose gradient is a grad op over a grad block (control_flow_grad.cc).
bool runs_sub_block(const OpDesc& op) {
  const OpInfo* info = OpRegistry::global().find(op.type);
  return info && info->runs_forward_block();
}

// Variables of `block` from which some target is reachable (reverse data flow).
std::set<std::string> reaching_targets(const Program& program, int block,
                                       const std::set<std::string>& targets) {
  std::set<std::string> reach = targets;
  const auto& ops = program.block(block).ops;
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      auto outs = it->output_names();
      bool hit = std::any_of(outs.begin(), outs.end(), [&](const auto& n) {
        return reach.count(n) && differentiable_var(program, block, n);
      });
      if (!hit) continue;
      for (const auto& n : it->input_names()) grew = reach.insert(n).second || grew;
    }
  }
  return reach;
}

// Declares `name` in `block` like its forward variable (dtype, shape, kind).
void declare_grad(Program& program, int block, const std::string& name, bool local) {
  if (name.empty()) return;
  if (local ? program.block(block).find_local_var(name) : program.find_var(block, name)) return;
  const VarDesc* fwd = program.find_var(block, forward_name(name));
  VarDesc v = fwd ? *fwd : VarDesc(name, DType::kF32, Shape{});
  v.name = name;
  v.persistable = false;
  v.stop_gradient = false;
  program.block(block).add_var(v);
}

}  // namespace

bool differentiable_var(const Program& program, int block, const std::string& name) {
  const VarDesc* v = program.find_var(block, name);
  return v && is_differentiable(v->dtype) &&
         (v->kind == VarKind::kDenseTensor || v->kind == VarKind::kTensorArray);
}

std::set<std::string> requiring_grad(const Program& program, int block,
                                     const std::set<std::string>& roots,
                                     const std::set<std::string>& no_grad) {
  std::set<std::string> req;
  for (const auto& r : roots)
    if (!no_grad.count(r)) req.insert(r);
  const auto& ops = program.block(block).ops;
  for (bool grew = true; grew;) {
    grew = false;
    for (const OpDesc& op : ops) {
      const OpInfo* info = OpRegistry::global().find(op.type);
      if (!info || (!info->differentiable() && !info->runs_forward_block())) continue;
      auto ins = op.input_names();
      if (!std::any_of(ins.begin(), ins.end(), [&](const auto& n) { return req.count(n); }))
        continue;
      for (const auto& n : op.output_names()) {
        if (n.empty() || no_grad.count(n) || !differentiable_var(program, block, n)) continue;
        const VarDesc* v = program.find_var(block, n);
        if (v->stop_gradient) continue;
        grew = req.insert(n).second || grew;
      }
    }
  }
  return req;
}

std::set<std::string> append_block_grad(Program& program, const BlockGradRequest& req) {
  const int block = req.fwd_block;
  rename_overwritten(program, block, req.local_grads);
  std::set<std::string>
  requires = requiring_grad(program, block, req.roots, req.no_grad);
  std::set<std::string> reach = reaching_targets(program, block, req.targets);

  std::vector<std::vector<OpDesc>> groups;
  if (!req.seed_ops.empty()) groups.push_back(req.seed_ops);
  const size_t n_ops = program.block(block).ops.size();
  for (size_t k = n_ops; k-- > 0;) {
    // Re-read the op each time: building a grad block may reallocate the blocks.
    const OpDesc op = program.block(block).ops[k];
    auto outs = op.output_names();
    auto ins = op.input_names();
    bool leads = std::any_of(outs.begin(), outs.end(), [&](const auto& n) {
      return reach.count(n) && differentiable_var(program, block, n);
    });
    bool needs =
        std::any_of(ins.begin(), ins.end(), [&](const auto& n) { return requires.count(n); });
    if (!leads || !needs) continue;
    if (runs_sub_block(op)) {
      groups.push_back({control_flow_grad(program, block, k, requires, req.no_grad)});
      continue;
    }
    const OpInfo& info = OpRegistry::global().get(op.type);
    if (!info.differentiable()) {
      fail(describe_op_error(program, block, op,
                             "this op has no gradient, but it lies on a path from a parameter "
                             "to the differentiated target (mark its inputs stop_gradient or "
                             "add them to no_grad)"));
    }
    GradContext g(op, [&](const std::string& n) {
      return requires.count(n) && !req.no_grad.count(n) && differentiable_var(program, block, n);
    });
    info.grad(g);
    groups.push_back(std::move(g.ops()));
  }

  std::vector<OpDesc> ops = accumulate_gradients(program, block, groups, req.given);
  // Gradients that hold values before the grad ops run (the runtime presets them in
  // a loop's grad scope) are declared like the rest.
  for (const auto& n : req.given) declare_grad(program, req.grad_block, n, req.local_grads);
  std::set<std::string> written;
  for (OpDesc& op : ops) {
    fill_default_attrs(op);
    for (const auto& n : op.output_names()) {
      declare_grad(program, req.grad_block, n, req.local_grads);
      if (!n.empty()) written.insert(n);
    }
    infer_op_shape(program, req.grad_block, op);
    program.block(req.grad_block).ops.push_back(std::move(op));
  }
  return written;
}

}  // namespace autodiff

std::vector<std::pair<std::string, std::string>> append_backward(Program& program,
                                                                 const std::string& target,
                                                                 const BackwardOptions& options) {
  const Block& b0 = program.global_block();
  const VarDesc* t = b0.find_local_var(target);
  SKIFF_CHECK(t, "append_backward: target '", target, "' is not declared in block 0");
  // A complex target has a gradient only when the caller feeds it (a real loss has none).
  SKIFF_CHECK(is_floating(t->dtype) || (is_complex(t->dtype) && options.feed_target_grad),
              "append_backward: target '", target, "' is ", dtype_name(t->dtype),
              "; only floating targets can be differentiated");

  autodiff::BlockGradRequest req;
  req.fwd_block = req.grad_block = 0;
  req.no_grad = options.no_grad;
  req.targets = {target};
  std::vector<std::string> params = options.parameters;
  if (params.empty()) {
    for (const auto& [name, v] : b0.vars) {
      if (v.persistable && !v.stop_gradient && v.kind == VarKind::kDenseTensor &&
          is_floating(v.dtype))
        params.push_back(name);
    }
  }
  for (const auto& p : params) {
    SKIFF_CHECK(b0.find_local_var(p), "append_backward: parameter '", p,
                "' is not declared in block 0");
    req.roots.insert(p);
  }
  if (options.feed_target_grad) {
    req.given.insert(grad_name(target));
    VarDesc g = *t;
    g.name = grad_name(target);
    g.persistable = false;
    program.global_block().add_var(g);
  } else {
    OpDesc ones("fill_any_like");
    ones.set_input("X", {target}).set_output("Out", {grad_name(target)}).set_attr("value", 1.0);
    req.seed_ops.push_back(ones);
  }
  std::set<std::string> written = autodiff::append_block_grad(program, req);

  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : params)
    if (written.count(grad_name(p))) out.emplace_back(p, grad_name(p));
  return out;
}

}  // namespace skiff
