// Ops that run sub-blocks. The runtime executes them (runtime/control_flow.cc) and
// append_backward builds their grad blocks (autodiff/control_flow_grad.cc); here are
// their schemas and shape inference.
#include "skiff/ops/control_flow.h"

#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"

namespace skiff {

namespace {

void infer_grads_like_inputs(ShapeContext& ctx, const char* in_slot, const char* grad_slot) {
  for (int i = 0; i < ctx.out_count(grad_slot); ++i) {
    if (!ctx.has_output(grad_slot, i)) continue;
    const VarDesc& v = ctx.in_var(in_slot, i);
    ctx.set_output(grad_slot, v.shape, v.dtype, i, v.kind);
  }
}

void infer_while_grad(ShapeContext& ctx) { infer_grads_like_inputs(ctx, "X", "X@GRAD"); }
void infer_conditional_block_grad(ShapeContext& ctx) {
  infer_grads_like_inputs(ctx, "Input", "Input@GRAD");
}

}  // namespace

void register_control_flow_ops(OpRegistry& r) {
  r.add(kWhileOp)
      .doc("Runs sub_block while Condition (a bool scalar the block updates) is true.")
      .inputs("X", "outer variables the block reads")
      .input("Condition", "bool scalar; the loop runs while it is true")
      .outputs("Out", "outer variables the block writes (loop-carried)")
      .optional_output("StepScopes", "the per-step scopes kept for the backward pass")
      .required_attr("sub_block", AttrType::kBlock, "the loop body")
      .attr("keep_step_scopes", false, "keep a scope per step (set by append_backward)")
      .runs_blocks(BlockRole::kLoop, {"X", "Out", "StepScopes", "Condition"});

  r.add("while_grad")
      .doc("Runs the grad block of a while body over its kept step scopes in reverse.")
      .inputs("X", "the forward op's X")
      .inputs("Out", "the forward op's Out")
      .inputs("Out@GRAD", "gradients of Out (\"\" where none flows)")
      .input("StepScopes", "the forward op's kept step scopes")
      .outputs("X@GRAD", "gradients of X (\"\" where not needed)")
      .required_attr("sub_block", AttrType::kBlock, "the grad block of the body")
      .infer_shape(infer_while_grad)
      .runs_blocks(BlockRole::kLoopGrad, {"X", "Out", "StepScopes", ""});

  r.add(kConditionalBlockOp)
      .doc(
          "Runs sub_block once if Cond (a bool scalar) is true; if/else is two of them "
          "and select_input.")
      .input("Cond", "bool scalar")
      .inputs("Input", "outer variables the block reads")
      .outputs("Out", "outer variables the block writes")
      .optional_output("Scope", "the scope kept for the backward pass")
      .required_attr("sub_block", AttrType::kBlock, "the branch")
      .attr("keep_step_scopes", false, "keep the branch scope (set by append_backward)")
      .runs_blocks(BlockRole::kBranch, {"Input", "Out", "Scope", "Cond"});

  r.add("conditional_block_grad")
      .doc(
          "Runs the grad block of a branch if the branch ran; else passes gradients "
          "through (or zeros).")
      .input("Cond", "the forward op's Cond")
      .inputs("Input", "the forward op's Input")
      .inputs("Out", "the forward op's Out")
      .inputs("Out@GRAD", "gradients of Out")
      .input("Scope", "the forward op's kept scope")
      .outputs("Input@GRAD", "gradients of Input (\"\" where not needed)")
      .required_attr("sub_block", AttrType::kBlock, "the grad block of the branch")
      .infer_shape(infer_conditional_block_grad)
      .runs_blocks(BlockRole::kBranchGrad, {"Input", "Out", "Scope", "Cond"});
}

const OpRegistrar kControlFlowOps(register_control_flow_ops);

}  // namespace skiff
