// Emitter rules of the ops that run sub-blocks: `while` becomes a C++ while loop and
// `conditional_block` an if, each with its block's statements inline; select_input (the
// join of if/else) copies the value of the branch that ran.
#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"

namespace skiff::codegen {

namespace {

int sub_block_of(OpEmitter& e) {
  const std::vector<int32_t> blocks = e.op().sub_blocks();
  SKIFF_CHECK(blocks.size() == 1, e.what(), " must run one sub-block, it names ", blocks.size());
  return blocks[0];
}

// A branch kept for its conditional_block_grad has no compiled form yet: refused by name.
void check_no_step_scopes(OpEmitter& e) {
  SKIFF_CHECK(!e.attr_or<bool>("keep_step_scopes", false), e.what(),
              " keeps its scope for a backward pass through the branch "
              "(conditional_block_grad), which compiled programs do not support yet");
}

void emit_while(OpEmitter& e) {
  if (e.attr_or<bool>("keep_step_scopes", false)) {
    e.program_emitter().emit_kept_while(e);
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
  check_no_step_scopes(e);
  const int branch = sub_block_of(e);
  e.open("if (codegen::condition(" + e.in("Cond") + ", " + OpEmitter::lit(e.what()) + ")) {");
  e.line("// block " + std::to_string(branch));
  e.block(branch);
  e.close();
}

void emit_select_input(OpEmitter& e) {
  std::string inputs;
  for (int i = 0; i < e.in_count("X"); ++i) {
    SKIFF_CHECK(e.has_in("X", i), e.what(), ": X[", i, "] is empty");
    inputs += (i ? ", &" : "&") + e.in("X", i);
  }
  e.line(e.out_ref("Out") + ".copy_from(codegen::select_input(" + e.in("Mask") + ", {" + inputs +
         "}, " + OpEmitter::lit(e.what()) + "));");
}

}  // namespace

void add_control_flow_rules(RuleTable& t) {
  t["while"] = emit_while;
  t["while_grad"] = [](OpEmitter& e) { e.program_emitter().emit_while_grad(e); };
  t["conditional_block"] = emit_conditional_block;
  t["select_input"] = emit_select_input;
}

}  // namespace skiff::codegen
