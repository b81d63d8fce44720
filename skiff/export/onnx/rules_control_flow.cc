// ONNX rules for loops and tensor arrays: `while` becomes Loop (the variables its body
// writes are loop-carried; the body is a sub-graph that reads outer values by name),
// and tensor arrays are ONNX sequences.
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

void while_loop(GraphEmitter& g, const OpDesc& op) {
  const std::vector<int32_t> subs = op.sub_blocks();
  SKIFF_CHECK(subs.size() == 1, "expected one sub_block, got ", subs.size());
  const std::string cond_var = op.first_input("Condition");
  SKIFF_CHECK(!cond_var.empty(), "Condition is empty");
  const VarDesc cond_desc = g.var_desc(cond_var);
  std::vector<std::string> carried;
  for (const std::string& v : op_writes(g.program(), op))
    if (v != cond_var) carried.push_back(v);

  std::vector<std::string> inputs = {"", g.value(cond_var)};  // no trip count
  for (const std::string& v : carried) inputs.push_back(value_or_stand_in(g, v));

  pb::GraphProto body;
  body.set_name(g.model().fresh_name("loop_body"));
  GraphEmitter b(&g.model(), &body, &g, subs[0]);
  const std::string iter = g.model().fresh_name("_iteration");
  set_value_info(body.add_input(), iter, VarDesc(iter, DType::kI64, Shape{}), DimStyle::kRankOnly);
  const std::string cond_in = g.model().fresh_name(cond_var + "_in");
  set_value_info(body.add_input(), cond_in, cond_desc, DimStyle::kRankOnly);
  b.bind(cond_var, cond_in);
  for (const std::string& v : carried) {
    const std::string in = g.model().fresh_name(v + "_in");
    set_value_info(body.add_input(), in, g.var_desc(v), DimStyle::kRankOnly);
    b.bind(v, in);
  }
  b.emit_block();
  b.add_graph_output(b.value(cond_var), cond_desc);
  for (const std::string& v : carried) b.add_graph_output(b.value(v), g.var_desc(v));

  std::vector<std::string> outputs;
  for (const std::string& v : carried) outputs.push_back(g.define(v));
  g.node("Loop", inputs, outputs).g("body", std::move(body));
  // A finished loop leaves its condition false.
  const Shape cond_shape = cond_desc.shape.known() ? cond_desc.shape : Shape{};
  g.bind(cond_var, g.filled(cond_shape, 0, DType::kBool));
}

// An array index as an int64 scalar.
std::string index_scalar(GraphEmitter& g, const OpDesc& op) {
  std::string i = g.apply("Reshape", {g.in(op, "I"), g.ints({})});
  if (g.dtype(op, "I") == DType::kI64) return i;
  const std::string cast = g.temp("index");
  g.node("Cast", {i}, {cast}).i("to", onnx_elem_type(DType::kI64));
  return cast;
}

// Out[I] = X: inserted at the end when I is the length, else replacing entry I.
void write_to_array(GraphEmitter& g, const OpDesc& op) {
  const std::string arr = op.first_output("Out");
  const std::string seq = g.value(arr);  // an empty sequence when unwritten
  const std::string x = g.in(op, "X");
  const std::string i = index_scalar(g, op);
  const std::string inside = g.apply("Less", {i, g.apply("SequenceLength", {seq})});
  const VarDesc desc = g.var_desc(arr);

  pb::GraphProto replace, insert;
  replace.set_name(g.model().fresh_name("array_replace"));
  insert.set_name(g.model().fresh_name("array_append"));
  GraphEmitter r(&g.model(), &replace, &g, g.block_idx());
  const std::string erased = r.apply("SequenceErase", {seq, i});
  r.add_graph_output(r.apply("SequenceInsert", {erased, x, i}), desc);
  GraphEmitter a(&g.model(), &insert, &g, g.block_idx());
  a.add_graph_output(a.apply("SequenceInsert", {seq, x, i}), desc);
  g.node("If", {inside}, {g.define(arr)})
      .g("then_branch", std::move(replace))
      .g("else_branch", std::move(insert));
}

void read_from_array(GraphEmitter& g, const OpDesc& op) {
  const std::string seq = g.in(op, "X");
  const std::string i = index_scalar(g, op);
  g.node("SequenceAt", {seq, i}, {g.out(op, "Out")});
}

void array_length(GraphEmitter& g, const OpDesc& op) {
  const std::string n = g.apply("SequenceLength", {g.in(op, "X")});
  g.node("Reshape", {n, g.ints({1})}, {g.out(op, "Out")});
}

void tensor_array_to_tensor(GraphEmitter& g, const OpDesc& op) {
  const std::string seq = g.in(op, "X");
  g.node("ConcatFromSequence", {seq}, {g.out(op, "Out")})
      .i("axis", op.attr<int64_t>("axis"))
      .i("new_axis", op.attr<bool>("use_stack"));
}

}  // namespace

void add_control_flow_rules(RuleTable& t) {
  t["while"] = while_loop;
  t["write_to_array"] = write_to_array;
  t["read_from_array"] = read_from_array;
  t["array_length"] = array_length;
  t["tensor_array_to_tensor"] = tensor_array_to_tensor;
}

}  // namespace skiff::onnx_export
