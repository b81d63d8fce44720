// ONNX rules for branches. The if/else that frontends build (conditional_block on
// pred, logical_not, conditional_block on its negation, then one select_input per
// result) becomes one If whose branches are the two blocks. Any other
// conditional_block becomes an If whose else branch keeps the written variables as
// they were, and a lone select_input an If that passes one candidate through.
#include <algorithm>
#include <optional>

#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// Where an if/else's parts sit in the block, by op index.
struct IfElse {
  int negation = -1;                // logical_not(pred)
  int false_block = -1;             // conditional_block on the negation
  std::vector<int> selects;         // select_input(X = [false result, true result], pred)
  bool negation_used_else = false;  // the negation is read by another op too
};

std::optional<IfElse> match_if_else(GraphEmitter& g, const OpDesc& op) {
  const std::vector<OpDesc>& ops = g.block().ops;
  const int i = g.op_index();
  const std::string pred = op.first_input("Cond");
  if (g.dtype(op, "Cond") != DType::kBool || i + 2 >= static_cast<int>(ops.size())) return {};
  const OpDesc& negation = ops[i + 1];
  const OpDesc& other = ops[i + 2];
  if (negation.type != "logical_not" || negation.first_input("X") != pred) return {};
  const std::string not_pred = negation.first_output("Out");
  if (other.type != "conditional_block" || other.first_input("Cond") != not_pred) return {};
  const std::vector<std::string> true_writes = op_writes(g.program(), op);
  const std::vector<std::string> false_writes = op_writes(g.program(), other);
  // The selects read pred after both branches ran: neither may change it.
  if (contains(true_writes, pred) || contains(true_writes, not_pred) ||
      contains(false_writes, pred))
    return {};
  IfElse m;
  m.negation = i + 1;
  m.false_block = i + 2;
  for (int k = i + 3; k < static_cast<int>(ops.size()); ++k) {
    const OpDesc& s = ops[k];
    const std::vector<std::string>& xs = s.input("X");
    if (s.type != "select_input" || s.first_input("Mask") != pred || xs.size() != 2 ||
        !contains(false_writes, xs[0]) || !contains(true_writes, xs[1]))
      break;
    m.selects.push_back(k);
  }
  m.negation_used_else = read_elsewhere(g.program(), not_pred, {&other});
  return m;
}

void fused_if_else(GraphEmitter& g, const OpDesc& op, const IfElse& m) {
  const std::vector<OpDesc>& ops = g.block().ops;
  const OpDesc& other = ops[m.false_block];
  const std::string cond = g.value(op.first_input("Cond"));
  pb::GraphProto then_graph, else_graph;
  then_graph.set_name(g.model().fresh_name("then_branch"));
  else_graph.set_name(g.model().fresh_name("else_branch"));
  GraphEmitter then_branch(&g.model(), &then_graph, &g, op.sub_blocks().at(0));
  GraphEmitter else_branch(&g.model(), &else_graph, &g, other.sub_blocks().at(0));
  then_branch.emit_block();
  else_branch.emit_block();

  // Each select's result, then every written variable read by anything but the selects.
  std::vector<std::pair<std::string, int>> outputs;  // var, index of the op writing it
  std::vector<const OpDesc*> selects;
  for (int k : m.selects) {
    const OpDesc& s = ops[k];
    selects.push_back(&s);
    const VarDesc& d = g.var_desc(s.first_output("Out"));
    then_branch.add_graph_output(then_branch.value(s.input("X")[1]), d);
    else_branch.add_graph_output(else_branch.value(s.input("X")[0]), d);
    outputs.emplace_back(d.name, k);
  }
  std::vector<std::string> written = op_writes(g.program(), op);
  for (const std::string& v : op_writes(g.program(), other))
    if (!contains(written, v)) written.push_back(v);
  const std::vector<std::string> false_writes = op_writes(g.program(), other);
  for (const std::string& v : written) {
    if (!read_elsewhere(g.program(), v, selects)) continue;
    const VarDesc& d = g.var_desc(v);
    then_branch.add_graph_output(value_or_stand_in(then_branch, v), d);
    else_branch.add_graph_output(value_or_stand_in(else_branch, v), d);
    outputs.emplace_back(v, contains(false_writes, v) ? m.false_block : g.op_index());
  }
  std::vector<std::string> names;
  for (const auto& [var, writer] : outputs) names.push_back(g.define(var, writer));
  g.node("If", {cond}, names)
      .g("then_branch", std::move(then_graph))
      .g("else_branch", std::move(else_graph));
  if (!m.negation_used_else) g.skip_op(m.negation);
  g.skip_op(m.false_block);
  for (int k : m.selects) g.skip_op(k);
}

// Runs the block when Cond holds; otherwise the variables it writes keep their
// values (or, having none, get stand-ins no later op may read).
void conditional_block(GraphEmitter& g, const OpDesc& op) {
  const std::vector<int32_t> subs = op.sub_blocks();
  SKIFF_CHECK(subs.size() == 1, "expected one sub_block, got ", subs.size());
  if (std::optional<IfElse> m = match_if_else(g, op)) {
    fused_if_else(g, op, *m);
    return;
  }
  const std::string cond = as_bool(g, g.in(op, "Cond"), g.dtype(op, "Cond"));
  const std::vector<std::string> written = op_writes(g.program(), op);
  pb::GraphProto then_graph, else_graph;
  then_graph.set_name(g.model().fresh_name("then_branch"));
  else_graph.set_name(g.model().fresh_name("else_branch"));
  GraphEmitter then_branch(&g.model(), &then_graph, &g, subs[0]);
  then_branch.emit_block();
  GraphEmitter else_branch(&g.model(), &else_graph, &g, g.block_idx());
  for (const std::string& v : written) {
    const VarDesc& d = g.var_desc(v);
    then_branch.add_graph_output(value_or_stand_in(then_branch, v), d);
    else_branch.add_graph_output(value_or_stand_in(else_branch, v), d);
  }
  std::vector<std::string> outputs;
  for (const std::string& v : written) outputs.push_back(g.define(v));
  g.node("If", {cond}, outputs)
      .g("then_branch", std::move(then_graph))
      .g("else_branch", std::move(else_graph));
}

// Out = X[Mask]: an If whose branches pass X[1] (Mask true) or X[0] through.
void select_input(GraphEmitter& g, const OpDesc& op) {
  const std::vector<std::string>& xs = op.input("X");
  SKIFF_CHECK(xs.size() == 2, "only two candidates export (If has two branches), got ", xs.size());
  const std::string mask = as_bool(g, g.in(op, "Mask"), g.dtype(op, "Mask"));
  const VarDesc out_desc = g.var_desc(op.first_output("Out"));
  pb::GraphProto then_graph, else_graph;
  then_graph.set_name(g.model().fresh_name("select_true"));
  else_graph.set_name(g.model().fresh_name("select_false"));
  GraphEmitter then_branch(&g.model(), &then_graph, &g, g.block_idx());
  GraphEmitter else_branch(&g.model(), &else_graph, &g, g.block_idx());
  then_branch.add_graph_output(value_or_stand_in(then_branch, xs[1]), out_desc);
  else_branch.add_graph_output(value_or_stand_in(else_branch, xs[0]), out_desc);
  g.node("If", {mask}, {g.out(op, "Out")})
      .g("then_branch", std::move(then_graph))
      .g("else_branch", std::move(else_graph));
}

}  // namespace

void add_if_else_rules(RuleTable& t) {
  t["conditional_block"] = conditional_block;
  t["select_input"] = select_input;
}

}  // namespace skiff::onnx_export
