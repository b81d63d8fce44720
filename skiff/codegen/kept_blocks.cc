// Loops and branches kept for a backward pass (keep_step_scopes, set by append_backward),
// and their grad ops. Where the interpreter keeps a scope per step (runtime/control_flow.cc),
// the generated code keeps a frame: a struct of the body's variables and of the values the
// step read of the carried (Out) variables, which are swapped out after the step. The grad
// op runs its block over the frames in reverse, carrying the carried variables' gradients
// from step to step and summing those of the other inputs.
//
// Nesting, to any depth, as the interpreter's scopes nest: a kept loop inside a kept body
// keeps its vector of frames in the outer frame (its StepScopes variable belongs to the
// outer body), and its grad op, which sits in the outer grad block, reads that vector
// through the outer frame being replayed. While a frame or backward step is written, the
// variables it holds resolve to its fields ("f_b2.h", "g_b5.h_GRAD"); a nested block adds
// its own on top and restores the outer ones when it ends, so every name resolves to the
// innermost frame that holds it — the scope chain step -> outer step -> ... of the
// interpreter. Each frame and step has its own C++ names (f_b<body>, g_b<grad block>).
#include "skiff/codegen/op_emitter.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/core/error.h"
#include "skiff/ops/registry.h"

namespace skiff::codegen {

namespace {

// Restores the overrides map to what it was when made (also when an error unwinds).
class OverridesRestorer {
 public:
  explicit OverridesRestorer(std::map<std::pair<int, std::string>, std::string>* overrides)
      : overrides_(overrides), saved_(*overrides) {}
  ~OverridesRestorer() { *overrides_ = std::move(saved_); }
  OverridesRestorer(const OverridesRestorer&) = delete;
  OverridesRestorer& operator=(const OverridesRestorer&) = delete;

 private:
  std::map<std::pair<int, std::string>, std::string>* overrides_;
  std::map<std::pair<int, std::string>, std::string> saved_;
};

}  // namespace

void ProgramEmitter::emit_kept_block(OpEmitter& e) {
  const int body = e.op().sub_blocks().at(0);
  const OpInfo& info = OpRegistry::global().get(e.op().type);
  const bool branch = info.block_role == BlockRole::kBranch;
  const KeptLoop* loop =
      loop_of_scopes(e.block_idx(), e.op().first_output(info.block_slots.scopes));
  SKIFF_CHECK(loop && loop->body == body, e.what(), ": no kept block ", body);
  const std::string frames = e.expr(loop->scopes_var);
  const std::string& f = loop->frame_var;
  e.line(branch ? "// The branch keeps its values in a frame when it runs, for its gradient."
                : "// Each step keeps its values in a frame, for while_grad.");
  e.line(frames + ".clear();");
  e.open(std::string(branch ? "if" : "while") + " (codegen::condition(" +
         e.in(info.block_slots.cond) + ", " + OpEmitter::lit(e.what()) + ")) {");
  e.line("// block " + std::to_string(body));
  e.line(loop->frame_type + "& " + f + " = " + frames + ".emplace_back();");
  std::vector<std::pair<std::string, std::string>> swaps;  // outer expression, frame field
  for (const std::string& c : loop->carried) {
    const std::string field = f + "." + var_of(e.block_idx(), c).field;
    e.line(field + " = " + e.expr(c) + ";  // the value this step reads");
    swaps.emplace_back(e.expr(c), field);
  }
  {
    OverridesRestorer restore(&overrides_);
    for (const std::string& c : loop->carried)
      overrides_[{owner_block(e.block_idx(), c), c}] = f + "." + var_of(e.block_idx(), c).field;
    for (const ProgramVar& v : vars_)
      if (v.block == body) overrides_[{body, v.name}] = f + "." + v.field;
    emit_block(body, out_);
  }
  e.line("// The new values go out; the frame keeps those the step read.");
  for (const auto& [outer, field] : swaps) e.line("std::swap(" + outer + ", " + field + ");");
  e.close();
}

void ProgramEmitter::emit_block_grad(OpEmitter& e) {
  const OpDesc& op = e.op();
  const int grad = op.sub_blocks().at(0);
  const BlockSlots& slots = OpRegistry::global().get(op.type).block_slots;
  const char* scopes_slot = slots.scopes;
  const char* in_slot = slots.reads;
  const KeptLoop* loop = loop_of_scopes(e.block_idx(), op.first_input(scopes_slot));
  SKIFF_CHECK(loop, e.what(), ": its ", scopes_slot, " '", op.first_input(scopes_slot),
              "' is kept by no compiled loop or branch");
  e.include("fill");
  e.include("accumulate");
  e.include("tensor_array");
  const std::vector<std::string>& xs = op.input(in_slot);
  const std::vector<std::string>& outs = op.input(slots.writes);
  const std::vector<std::string>& out_grads = op.input(std::string(slots.writes) + kGradSuffix);
  const std::vector<std::string>& x_grads = op.output(std::string(in_slot) + kGradSuffix);
  std::set<std::string> produced;
  for (const OpDesc& g : ops_[grad])
    for (const std::string& n : g.output_names()) produced.insert(n);
  auto grad_field = [&](const std::string& n) -> const ProgramVar* {
    auto it = index_.find({grad, grad_name(n)});
    return it == index_.end() ? nullptr : &vars_[it->second];
  };
  auto out_index = [&](const std::string& x) -> int {
    for (size_t i = 0; i < outs.size(); ++i)
      if (outs[i] == x) return static_cast<int>(i);
    return -1;
  };

  // The C++ type of the gradient of `x` (a tensor or a tensor array, as x is).
  auto grad_type = [&](const std::string& x) -> std::string {
    const VarKind kind = kind_of(e.block_idx(), x);
    SKIFF_CHECK(kind == VarKind::kDenseTensor || kind == VarKind::kTensorArray, e.what(), ": '", x,
                "' is a ", var_kind_name(kind),
                "; compiled loop gradients carry and sum tensors and tensor arrays only");
    return cpp_type(kind);
  };

  // This step's C++ names: the frame replayed, the backward step, the carried gradients.
  const std::string& f = loop->frame_var;
  const std::string g_var = "g_b" + std::to_string(grad);
  const std::string step = "step_b" + std::to_string(grad);
  auto carry = [&](size_t i) { return "carry_b" + std::to_string(grad) + "_" + std::to_string(i); };
  e.open("{");
  e.line("// The gradient of each loop-carried variable, carried back from step to step.");
  for (size_t i = 0; i < outs.size(); ++i) {
    const bool incoming = i < out_grads.size() && !out_grads[i].empty();
    const std::string type = grad_type(outs[i]);
    SKIFF_CHECK(
        !incoming || kind_of(e.block_idx(), out_grads[i]) == kind_of(e.block_idx(), outs[i]),
        e.what(), ": the gradient '", out_grads[i], "' of '", outs[i], "' is not of its kind");
    e.line(type + " " + carry(i) + (incoming ? " = " + e.expr(out_grads[i]) : "") + ";  // " +
           grad_name(outs[i]));
  }
  std::vector<std::pair<std::string, std::string>> totals;  // x, total variable
  for (const std::string& x : xs) {
    if (x.empty() || out_index(x) >= 0 || !produced.count(grad_name(x))) continue;
    bool seen = false;
    for (const auto& t : totals) seen = seen || t.first == x;
    if (seen) continue;
    totals.emplace_back(x, "total_b" + std::to_string(grad) + "_" + std::to_string(totals.size()));
    e.line(grad_type(x) + " " + totals.back().second + ";  // " + grad_name(x) +
           ", summed over the steps");
  }
  const std::string frames = e.expr(loop->scopes_var);
  e.open("for (auto " + step + " = " + frames + ".rbegin(); " + step + " != " + frames +
         ".rend(); ++" + step + ") {");
  e.line("// block " + std::to_string(grad) + ", over the values step *" + step + " kept");
  e.line(loop->frame_type + "& " + f + " = *" + step + ";");
  e.line("Grad_b" + std::to_string(grad) + " " + g_var + ";");
  {
    OverridesRestorer restore(&overrides_);
    for (const std::string& c : loop->carried)
      overrides_[{owner_block(loop->block, c), c}] = f + "." + var_of(loop->block, c).field;
    for (const ProgramVar& v : vars_) {
      if (v.block == loop->body) overrides_[{loop->body, v.name}] = f + "." + v.field;
      if (v.block == grad) overrides_[{grad, v.name}] = g_var + "." + v.field;
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      const ProgramVar* g = grad_field(outs[i]);
      if (!g) continue;
      e.line("if (codegen::has_value(" + carry(i) + ")) " + g_var + "." + g->field + " = " +
             carry(i) + ";");
      e.line("else k::zeros_like(" + expr_of(grad, outs[i]) + ", &" + g_var + "." + g->field +
             ");");
    }
    emit_block(grad, out_);
    for (size_t i = 0; i < outs.size(); ++i) {
      const ProgramVar* g = grad_field(outs[i]);
      const bool made = g && produced.count(grad_name(outs[i]));
      e.line(carry(i) + " = " +
             (made ? g_var + "." + g->field
                   : std::string(cpp_type(kind_of(e.block_idx(), outs[i]))) + "()") +
             ";");
    }
    for (const auto& [x, total] : totals) {
      const std::string g = g_var + "." + grad_field(x)->field;
      if (kind_of(e.block_idx(), x) == VarKind::kTensorArray) {
        e.line("k::sum_arrays({&" + g + ", &" + total + "}, &" + total + ");");
        continue;
      }
      e.line("if (!" + total + ".initialized()) " + total + ".copy_from(" + g + ");");
      e.line("else k::add_inplace(" + g + ", &" + total + ");");
    }
  }
  e.close();
  e.line("// The gradients of the loop's inputs.");
  for (size_t i = 0; i < xs.size() && i < x_grads.size(); ++i) {
    if (x_grads[i].empty() || xs[i].empty()) continue;
    const std::string dst = e.expr(x_grads[i]);
    std::string source;
    if (out_index(xs[i]) >= 0) source = carry(static_cast<size_t>(out_index(xs[i])));
    for (const auto& [x, total] : totals)
      if (x == xs[i]) source = total;
    if (source.empty()) {
      e.line("k::zeros_like(" + e.expr(xs[i]) + ", &" + dst + ");");
      continue;
    }
    e.line("if (codegen::has_value(" + source + ")) " + dst + " = " + source + ";");
    e.line("else k::zeros_like(" + e.expr(xs[i]) + ", &" + dst + ");");
  }
  e.close();
}

}  // namespace skiff::codegen
