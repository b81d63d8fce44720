// Gradients of ops that run sub-blocks. The grad of `while` (and of a
// `conditional_block`, a loop of at most one step) is an op of the same shape whose
// sub-block is the backward of the body, built by the same block driver. The runtime
// runs that grad block once per kept step scope, in reverse (runtime/control_flow.cc).
// Which op is a loop or a branch, and its slots, are the op's registered traits
// (OpInfo::block_role, OpInfo::block_slots).
#include "skiff/autodiff/block_grad.h"
#include "skiff/ops/registry.h"

namespace skiff::autodiff {

OpDesc control_flow_grad(Program& program, int block, size_t op_index,
                         const std::set<std::string>& requires_grad,
                         const std::set<std::string>& no_grad) {
  program.block(block).ops[op_index].set_attr("keep_step_scopes", true);
  const OpDesc fwd = program.block(block).ops[op_index];
  const OpInfo& info = OpRegistry::global().get(fwd.type);
  const BlockSlots& s = info.block_slots;
  const int body = fwd.attr<BlockRef>("sub_block").idx;
  const auto& xs = fwd.input(s.reads);
  const auto& outs = fwd.output(s.writes);

  BlockGradRequest req;
  req.fwd_block = body;
  req.grad_block = program.add_block(body).idx;
  req.no_grad = no_grad;
  req.local_grads = true;
  for (const auto& x : xs)
    if (requires_grad.count(x)) req.roots.insert(x);
  std::vector<std::string> out_grads;
  for (const auto& o : outs) {
    bool flows = differentiable_var(program, block, o);
    out_grads.push_back(flows ? grad_name(o) : "");
    if (!flows) continue;
    req.targets.insert(o);
    req.given.insert(grad_name(o));
  }
  append_block_grad(program, req);

  std::vector<std::string> x_grads;
  for (const auto& x : xs) {
    bool wanted =
        requires_grad.count(x) && !no_grad.count(x) && differentiable_var(program, block, x);
    x_grads.push_back(wanted ? grad_name(x) : "");
  }
  OpDesc grad(fwd.type + "_grad");
  // A loop's grad runs once per kept step; a branch's grad asks whether the branch ran.
  if (info.block_role == BlockRole::kBranch) grad.set_input(s.cond, fwd.input(s.cond));
  grad.set_input(s.reads, xs)
      .set_input(s.writes, outs)
      .set_input(std::string(s.writes) + kGradSuffix, out_grads)
      .set_input(s.scopes, fwd.output(s.scopes))
      .set_output(std::string(s.reads) + kGradSuffix, x_grads)
      .set_attr("sub_block", BlockRef{req.grad_block});
  std::string src = fwd.source();
  if (!src.empty()) grad.set_attr(kSourceAttr, src);
  return grad;
}

}  // namespace skiff::autodiff
