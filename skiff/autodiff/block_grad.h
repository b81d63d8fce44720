// Internals of append_backward, shared by its three files: the per-block driver
// (backward.cc), gradient accumulation (grad_accumulation.cc) and the grads of ops
// that run sub-blocks (control_flow_grad.cc).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff::autodiff {

struct BlockGradRequest {
  int fwd_block = 0;
  int grad_block = 0;             // where grad ops go (== fwd_block for block 0)
  std::set<std::string> roots;    // variables whose gradients are wanted
  std::set<std::string> targets;  // variables whose gradients flow in
  std::set<std::string> given;    // gradient names holding values before the grad ops
  std::set<std::string> no_grad;  // variables no gradient flows through
  bool local_grads = false;       // declare every gradient in grad_block itself
  std::vector<OpDesc> seed_ops;   // ops that run first (the target's ones-gradient)
};

// Appends the grad ops of req.fwd_block's ops to req.grad_block, declares their
// variables and infers their shapes. Returns the gradient names it wrote.
std::set<std::string> append_block_grad(Program& program, const BlockGradRequest& req);

// Variables of `block` that depend on `roots` through differentiable ops (floating
// dtypes only), iterated to a fixed point (so loop-carried variables are included).
std::set<std::string> requiring_grad(const Program& program, int block,
                                     const std::set<std::string>& roots,
                                     const std::set<std::string>& no_grad);

// True when the variable is floating (tensor or tensor array) and may carry a gradient.
bool differentiable_var(const Program& program, int block, const std::string& name);

// The forward variable behind a gradient name ("h@GRAD@RENAME@2" -> "h"), or "".
std::string forward_name(const std::string& grad);

// Orders grad ops (grouped per forward op) so that gradients written by several ops
// are renamed and summed before they are read, and unreached ones are zero-filled.
std::vector<OpDesc> accumulate_gradients(const Program& program, int fwd_block,
                                         const std::vector<std::vector<OpDesc>>& groups,
                                         const std::set<std::string>& given);

// Gives each value of a variable that `block` overwrites its own name, so grad ops
// read the values their forward ops saw (overwrite_rename.cc). `kept_scope`: the block
// is a loop or branch body run in a kept step scope.
void rename_overwritten(Program& program, int block, bool kept_scope);

// The grad op of the loop or branch (OpInfo::runs_forward_block) at ops[op_index] of `block`;
// builds its grad block and marks the forward op to keep its step scopes.
OpDesc control_flow_grad(Program& program, int block, size_t op_index,
                         const std::set<std::string>& requires_grad,
                         const std::set<std::string>& no_grad);

}  // namespace skiff::autodiff
