// Emitter rules of the ops that run sub-blocks: `while` becomes a C++ while loop and
// `conditional_block` an if, each with its block's statements inline (kept for a backward
// pass: with a frame per step, kept_blocks.cc); select_input (the join of if/else) copies
// the value (a tensor or a tensor array) of the branch that ran, select_input_grad routes
// the gradient back.
#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/ops/control_flow.h"

namespace skiff::codegen {

namespace {

int sub_block_of(OpEmitter& e) {
  const std::vector<int32_t> blocks = e.op().sub_blocks();
  SKIFF_CHECK(blocks.size() == 1, e.what(), " must run one sub-block, it names ", blocks.size());
  return blocks[0];
}

void emit_while(OpEmitter& e) {
  if (e.attr_or<bool>("keep_step_scopes", false)) {
    e.program_emitter().emit_kept_block(e);
    return;
  }
  const int body = sub_block_of(e);
  if (e.program_emitter().try_emit_bound_loop(e, body)) return;
  e.open("while (codegen::condition(" + e.in("Condition") + ", " + OpEmitter::lit(e.what()) +
         ")) {");
  e.line("// block " + std::to_string(body));
  e.block(body);
  e.close();
}

void emit_conditional_block(OpEmitter& e) {
  if (e.attr_or<bool>("keep_step_scopes", false)) {
    e.program_emitter().emit_kept_block(e);
    return;
  }
  const int branch = sub_block_of(e);
  e.open("if (codegen::condition(" + e.in("Cond") + ", " + OpEmitter::lit(e.what()) + ")) {");
  e.line("// block " + std::to_string(branch));
  e.block(branch);
  e.close();
}

// The candidates are tensors or tensor arrays (lists that both branches wrote).
void emit_select_input(OpEmitter& e) {
  const bool arrays = e.in_kind("X") == VarKind::kTensorArray;
  std::string inputs;
  for (int i = 0; i < e.in_count("X"); ++i) {
    SKIFF_CHECK(e.has_in("X", i), e.what(), ": X[", i, "] is empty");
    inputs += (i ? ", &" : "&") + (arrays ? e.in_array("X", i) : e.in("X", i));
  }
  const std::string picked = "codegen::select_input(" + e.in("Mask") + ", {" + inputs + "}, " +
                             OpEmitter::lit(e.what()) + ")";
  if (arrays) {
    e.include("copy");
    e.line("k::copy_array(" + picked + ", " + e.out_array("Out") + ");");
    return;
  }
  e.line(e.out_ref("Out") + ".copy_from(" + picked + ");");
}

// The gradient goes to the input the mask picked; the others get no value.
void emit_select_input_grad(OpEmitter& e) {
  const bool arrays = e.in_kind("Out@GRAD") == VarKind::kTensorArray;
  const int count = static_cast<int>(e.op().output("X@GRAD").size());
  e.open("{");
  e.line("const int64_t picked = codegen::select_index(" + e.in("Mask") + ", " +
         std::to_string(count) + ", " + OpEmitter::lit(e.what()) + ");");
  if (arrays) e.include("copy");
  for (int i = 0; i < count; ++i) {
    if (!e.has_out("X@GRAD", i)) continue;
    if (arrays) {
      const std::string dst = e.out_array("X@GRAD", i);
      e.line("if (picked == " + std::to_string(i) + ") k::copy_array(" + e.in_array("Out@GRAD") +
             ", " + dst + ");");
      e.line("else *" + dst + " = TensorArray();");
      continue;
    }
    const std::string dst = e.out_ref("X@GRAD", i);
    e.line("if (picked == " + std::to_string(i) + ") " + dst + ".copy_from(" + e.in("Out@GRAD") +
           ");");
    e.line("else " + dst + " = Tensor();");
  }
  e.close();
}

}  // namespace

void add_control_flow_rules(RuleTable& t) {
  t[kWhileOp] = emit_while;
  t["while_grad"] = [](OpEmitter& e) { e.program_emitter().emit_block_grad(e); };
  t["conditional_block_grad"] = [](OpEmitter& e) { e.program_emitter().emit_block_grad(e); };
  t["select_input_grad"] = emit_select_input_grad;
  t[kConditionalBlockOp] = emit_conditional_block;
  t["select_input"] = emit_select_input;
}

}  // namespace skiff::codegen
