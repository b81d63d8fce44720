#include "skiff/runtime/prepare_rewrites.h"

#include <algorithm>
#include <unordered_map>

#include "skiff/ops/fuse_activation.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/nan_inf_check.h"

namespace skiff {

namespace {

bool names(const std::vector<Slot>& slots, const std::string& name) {
  for (const auto& [slot, vars] : slots)
    if (std::find(vars.begin(), vars.end(), name) != vars.end()) return true;
  return false;
}

// How many times each name appears as an input or output of any op of the program.
std::unordered_map<std::string, int> name_uses(const Program& program) {
  std::unordered_map<std::string, int> uses;
  for (int b = 0; b < program.num_blocks(); ++b) {
    for (const OpDesc& op : program.block(b).ops) {
      for (const auto& [slot, names] : op.inputs)
        for (const auto& n : names) ++uses[n];
      for (const auto& [slot, names] : op.outputs)
        for (const auto& n : names) ++uses[n];
    }
  }
  return uses;
}

// The block's ops with `t = P(...); v = assign(t)` made `v = P(...)` where that changes
// nothing observable: t is a dense temporary of this block that nothing else in the
// program names (not a backward reading it, not a fetch in `keep`), P runs no block and
// reads v only if its kernel may write an input's buffer (OpInfo::writes_in_place), and no
// op between the two touches v. A loop body's `h = tanh(...)` then writes h in place of a
// copy each step, and `t = scale(i, bias=1); i = assign(t)` (to_static's `i += 1`) becomes
// `i = scale(i, bias=1)`: one op and one copy fewer.
std::vector<OpDesc> fold_assigns(const Program& program, int block_idx,
                                 const std::vector<std::string>& keep) {
  const Block& block = program.block(block_idx);
  std::vector<OpDesc> ops = block.ops;
  std::unordered_map<std::string, int> uses;
  std::vector<bool> dropped(ops.size(), false);
  for (size_t a = 0; a < ops.size(); ++a) {
    const OpDesc& assign = ops[a];
    if (assign.type != "assign" || assign.inputs.size() != 1 || assign.outputs.size() != 1 ||
        assign.inputs[0].second.size() != 1 || assign.outputs[0].second.size() != 1)
      continue;
    const std::string& t = assign.inputs[0].second[0];
    const std::string& v = assign.outputs[0].second[0];
    const VarDesc* tvar = block.find_local_var(t);
    if (t == v || v.empty() || !tvar || tvar->persistable || tvar->kind != VarKind::kDenseTensor ||
        std::find(keep.begin(), keep.end(), t) != keep.end())
      continue;
    if (uses.empty()) uses = name_uses(program);
    if (uses[t] != 2) continue;
    // The producer: the last op before the assign that writes t.
    size_t p = a;
    while (p-- > 0 && (dropped[p] || !names(ops[p].outputs, t))) {
    }
    if (p >= a || !ops[p].sub_blocks().empty() || names(ops[p].outputs, v)) continue;
    if (names(ops[p].inputs, v) && !OpRegistry::global().get(ops[p].type).writes_in_place) continue;
    bool v_touched = false;
    for (size_t k = p + 1; k < a && !v_touched; ++k) {
      if (dropped[k]) continue;
      std::set<std::string> used;
      collect_names(program, ops[k], &used);
      v_touched = used.count(v) > 0;
    }
    if (v_touched) continue;
    for (auto& [slot, names] : ops[p].outputs)
      for (auto& n : names)
        if (n == t) n = v;
    dropped[a] = true;
  }
  std::vector<OpDesc> kept;
  for (size_t i = 0; i < ops.size(); ++i)
    if (!dropped[i]) kept.push_back(std::move(ops[i]));
  return kept;
}

bool is_elementwise_binary(const std::string& type) {
  return type == "elementwise_add" || type == "elementwise_sub" || type == "elementwise_mul" ||
         type == "elementwise_div" || type == "elementwise_max" || type == "elementwise_min";
}

// `t = elementwise_<op>(x, y); o = act(t)` made `o = elementwise_<op>(x, y,
// fuse_activation=act)` where t is a float temporary of this block that nothing else in the
// program names (not a backward op, not a fetch in `keep`) and the activation is the next
// op: one op and one tensor fewer a run (W1's `h = tanh(x @ W + h)`).
std::vector<OpDesc> fuse_activations(const Program& program, int block_idx, std::vector<OpDesc> ops,
                                     const std::vector<std::string>& keep) {
  const Block& block = program.block(block_idx);
  std::unordered_map<std::string, int> uses;
  std::vector<OpDesc> out;
  for (size_t k = 0; k < ops.size(); ++k) {
    OpDesc& op = ops[k];
    if (k + 1 < ops.size() && is_elementwise_binary(op.type) &&
        is_fusable_activation(ops[k + 1].type) &&
        op.attr_or<std::string>("fuse_activation", "").empty()) {
      const OpDesc& act = ops[k + 1];
      const std::string t = op.first_output("Out");
      const VarDesc* tvar = block.find_local_var(t);
      if (uses.empty()) uses = name_uses(program);
      if (!t.empty() && act.input_names() == std::vector<std::string>{t} &&
          act.output_names().size() == 1 && tvar && !tvar->persistable &&
          tvar->kind == VarKind::kDenseTensor &&
          (tvar->dtype == DType::kF32 || tvar->dtype == DType::kF64) && uses[t] == 2 &&
          std::find(keep.begin(), keep.end(), t) == keep.end()) {
        op.set_output("Out", {act.first_output("Out")});
        op.set_attr("fuse_activation", act.type);
        out.push_back(std::move(op));
        ++k;  // the activation is done by the op
        continue;
      }
    }
    out.push_back(std::move(op));
  }
  return out;
}

}  // namespace

void collect_names(const Program& program, const OpDesc& op, std::set<std::string>* names) {
  for (const auto& n : op.input_names()) names->insert(n);
  for (const auto& n : op.output_names()) names->insert(n);
  for (int32_t idx : op.sub_blocks()) {
    for (const OpDesc& inner : program.block(idx).ops) collect_names(program, inner, names);
  }
}

std::vector<OpDesc> rewrite_for_run(const Program& program, int block_idx,
                                    const std::vector<std::string>& keep) {
  std::vector<OpDesc> ops = fold_assigns(program, block_idx, keep);
  // With NaN/inf checks on, every op's result is checked: an infinite sum stays visible.
  if (check_nan_inf_enabled()) return ops;
  return fuse_activations(program, block_idx, std::move(ops), keep);
}

}  // namespace skiff
