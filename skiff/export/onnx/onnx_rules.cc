#include "skiff/export/onnx/onnx_rules.h"

#include <algorithm>

namespace skiff::onnx_export {

const RuleTable& onnx_rules() {
  static const RuleTable table = [] {
    RuleTable t;
    add_math_rules(t);
    add_reduce_rules(t);
    add_tensor_rules(t);
    add_nn_rules(t);
    add_rnn_rules(t);
    add_control_flow_rules(t);
    add_if_else_rules(t);
    add_loss_rules(t);
    add_index_rules(t);
    add_resample_rules(t);
    add_quantize_rules(t);
    return t;
  }();
  return table;
}

int64_t normalize_axis(int64_t axis, int rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  SKIFF_CHECK(a >= 0 && a < rank, "axis ", axis, " is outside a rank-", rank, " tensor");
  return a;
}

void reduce_node(GraphEmitter& g, const std::string& onnx_op, const std::string& x,
                 const std::vector<int64_t>& axes, bool keepdims, const std::string& out) {
  // ReduceSum takes its axes as an input from opset 13, the others from opset 18.
  const bool axes_input = onnx_op == "ReduceSum" || g.opset() >= 18;
  std::vector<std::string> inputs{x};
  if (axes_input && !axes.empty()) inputs.push_back(g.ints(axes));
  NodeWriter n = g.node(onnx_op, inputs, {out});
  n.i("keepdims", keepdims ? 1 : 0);
  if (!axes_input && !axes.empty()) n.ints("axes", axes);
}

std::vector<std::string> split_equal(GraphEmitter& g, const std::string& x, int parts,
                                     int64_t axis) {
  std::vector<std::string> outs;
  for (int k = 0; k < parts; ++k) outs.push_back(g.temp("part"));
  NodeWriter n = g.node("Split", {x}, outs);
  n.i("axis", axis);
  // From opset 18 an equal split says how many parts; before, the output count does.
  if (g.opset() >= 18) n.i("num_outputs", parts);
  return outs;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool read_elsewhere(const Program& program, const std::string& var,
                    const std::vector<const OpDesc*>& except) {
  if (contains(program.fetch_names, var)) return true;
  for (const Block& b : program.blocks())
    for (const OpDesc& op : b.ops)
      if (std::find(except.begin(), except.end(), &op) == except.end() &&
          contains(op.input_names(), var))
        return true;
  return false;
}

std::string value_or_stand_in(GraphEmitter& g, const std::string& var) {
  return g.has_value(var) ? g.value(var) : g.stand_in(var);
}

std::string as_bool(GraphEmitter& g, const std::string& value, DType dtype) {
  if (dtype == DType::kBool) return value;
  const std::string cast = g.temp("as_bool");
  g.node("Cast", {value}, {cast}).i("to", onnx_elem_type(DType::kBool));
  return cast;
}

std::string dims_of(GraphEmitter& g, const std::string& x, const Shape& shape, int begin, int end) {
  bool known = true;
  std::vector<int64_t> dims;
  for (int i = begin; i < end; ++i) {
    known = known && shape[i] >= 0;
    dims.push_back(shape[i]);
  }
  if (known) return g.ints(dims);
  const std::string all = g.apply("Shape", {x});
  return g.apply("Slice", {all, g.ints({begin}), g.ints({end})});
}

}  // namespace skiff::onnx_export
