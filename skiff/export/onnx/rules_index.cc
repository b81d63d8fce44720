// ONNX rules for ops that place or find elements by position: scatter (ScatterND),
// where_index (NonZero), tril_triu (Trilu, opset 14 on), unique (Unique, opset 11 on).
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// Rows Ids of X replaced by Updates (overwrite), or set to the sum of their updates.
void scatter(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X"), updates = g.in(op, "Updates");
  std::string ids = g.in(op, "Ids");
  if (g.dtype(op, "Ids") != DType::kI64) {
    const std::string cast = g.temp("ids");
    g.node("Cast", {ids}, {cast}).i("to", onnx_elem_type(DType::kI64));
    ids = cast;
  }
  const std::string rows = g.apply("Unsqueeze", {ids, g.ints({-1})});  // [M, 1]
  if (op.attr<bool>("overwrite")) {
    g.node("ScatterND", {x, rows, updates}, {g.out(op, "Out")});
    return;
  }
  SKIFF_CHECK(g.opset() >= 16, "scatter without overwrite needs opset 16 (ScatterND's add)");
  const std::string zeros = g.temp("zeros");
  g.node("ConstantOfShape", {g.apply("Shape", {updates})}, {zeros})
      .t("value", tensor_proto(Shape{1}, g.dtype(op, "X"), {0}));
  const std::string cleared = g.apply("ScatterND", {x, rows, zeros});
  g.node("ScatterND", {cleared, rows, updates}, {g.out(op, "Out")}).s("reduction", "add");
}

void where_index(GraphEmitter& g, const OpDesc& op) {
  const std::string nonzero = g.apply("NonZero", {g.in(op, "Condition")});  // [rank, n]
  g.node("Transpose", {nonzero}, {g.out(op, "Out")}).ints("perm", {1, 0});
}

void tril_triu(GraphEmitter& g, const OpDesc& op) {
  SKIFF_CHECK(g.opset() >= 14, "tril_triu needs opset 14 (Trilu)");
  const std::string x = g.in(op, "X");
  const std::string k = g.scalar(static_cast<double>(op.attr<int64_t>("diagonal")), DType::kI64);
  g.node("Trilu", {x, k}, {g.out(op, "Out")}).i("upper", !op.attr<bool>("lower"));
}

// Unique (opset 11) computes every output in int64; skiff's int32 outputs get a Cast.
void unique(GraphEmitter& g, const OpDesc& op) {
  SKIFF_CHECK(g.opset() >= 11, "unique needs opset 11 (Unique)");
  const DType index = dtype_from_name(op.attr<std::string>("dtype"));
  std::vector<std::string> outs = {g.out(op, "Out")};
  std::vector<std::pair<std::string, std::string>> casts;  // (int64 value, skiff output)
  for (const char* slot : {"Indices", "Index", "Counts"}) {
    if (!g.has_out(op, slot)) {
      outs.push_back(g.temp("unused"));
    } else if (index == DType::kI64) {
      outs.push_back(g.out(op, slot));
    } else {
      outs.push_back(g.temp("index"));
      casts.push_back({outs.back(), g.out(op, slot)});
    }
  }
  const std::vector<int64_t> axis = op.attr<std::vector<int64_t>>("axis");
  NodeWriter node = g.node("Unique", {g.in(op, "X")}, outs).i("sorted", 1);
  if (!axis.empty()) node.i("axis", axis[0]);
  for (const auto& [wide, out] : casts)
    g.node("Cast", {wide}, {out}).i("to", onnx_elem_type(index));
}

}  // namespace

void add_index_rules(RuleTable& t) {
  t["scatter"] = scatter;
  t["where_index"] = where_index;
  t["unique"] = unique;
  t["tril_triu"] = tril_triu;
}

}  // namespace skiff::onnx_export
