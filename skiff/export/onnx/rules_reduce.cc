// ONNX rules for ops that combine elements: reductions, softmax / log_softmax,
// matmul (Gemm for 2-D operands), arg max / min, cumulative sums and top-k.
#include "skiff/export/onnx/onnx_rules.h"
#include "skiff/ops/registry.h"

namespace skiff::onnx_export {

namespace {

const std::map<std::string, const char*> kReduce = {{"reduce_sum", "ReduceSum"},
                                                    {"reduce_mean", "ReduceMean"},
                                                    {"reduce_max", "ReduceMax"},
                                                    {"reduce_min", "ReduceMin"},
                                                    {"reduce_prod", "ReduceProd"}};

void reduce(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  std::vector<int64_t> axes = op.attr<std::vector<int64_t>>("dim");
  if (op.attr<bool>("reduce_all")) axes.clear();
  const bool keep = op.attr<bool>("keep_dim");
  reduce_node(g, kReduce.at(op.type), x, axes, keep, g.out(op, "Out"));
}

void squared_l2_norm(GraphEmitter& g, const OpDesc& op) {
  SKIFF_CHECK(g.var_desc(op.first_input("X")).kind == VarKind::kDenseTensor,
              "only dense tensors (not selected rows) export");
  const std::string x = g.in(op, "X");
  const std::string total = g.temp("sum_of_squares");
  reduce_node(g, "ReduceSumSquare", x, {}, false, total);
  g.node("Reshape", {total, g.ints({1})}, {g.out(op, "Out")});
}

void softmax(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const char* onnx = op.type == "softmax" ? "Softmax" : "LogSoftmax";
  g.node(onnx, {x}, {g.out(op, "Out")}).i("axis", op.attr<int64_t>("axis"));
}

std::string swap_last_two(GraphEmitter& g, const std::string& x, int rank) {
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 2], perm[rank - 1]);
  const std::string out = g.temp("transposed");
  g.node("Transpose", {x}, {out}).ints("perm", perm);
  return out;
}

// The index of the op right after `op` when it adds a vector bias to op's 2-D result
// and nothing else reads that result (Gemm then adds the bias itself); else -1.
int bias_add_after(GraphEmitter& g, const OpDesc& op) {
  const int next = g.op_index() + 1;
  const std::vector<OpDesc>& ops = g.block().ops;
  if (next >= static_cast<int>(ops.size())) return -1;
  const OpDesc& add = ops[next];
  const std::string product = op.first_output("Out");
  if (add.type != "elementwise_add" || add.first_input("X") != product) return -1;
  OpDesc filled_add = add;  // the next op: its defaults are not filled in yet
  fill_default_attrs(filled_add);
  const int64_t axis = filled_add.attr<int64_t>("axis");
  if (g.shape(add, "Y").rank() != 1 || (axis != -1 && axis != 1)) return -1;
  if (read_elsewhere(g.program(), product, {&add})) return -1;
  return next;
}

// numpy matmul with optional transposes of the last two dims (ignored for 1-D).
void matmul(GraphEmitter& g, const OpDesc& op) {
  SKIFF_CHECK(op.attr<std::string>("out_dtype").empty(),
              "out_dtype (bfloat16 products) has no ONNX mapping");
  std::string x = g.in(op, "X"), y = g.in(op, "Y");
  const int rx = g.shape(op, "X").rank(), ry = g.shape(op, "Y").rank();
  const bool tx = op.attr<bool>("trans_x"), ty = op.attr<bool>("trans_y");
  const DType t = g.dtype(op, "X");
  if (rx == 2 && ry == 2 && (t == DType::kF32 || t == DType::kF64)) {
    const int add = bias_add_after(g, op);
    if (add < 0) {
      g.node("Gemm", {x, y}, {g.out(op, "Out")}).i("transA", tx).i("transB", ty);
      return;
    }
    const OpDesc& bias_add = g.block().ops[add];
    const std::string bias = g.in(bias_add, "Y");
    const std::string out = g.define(bias_add.first_output("Out"), add);
    g.node("Gemm", {x, y, bias}, {out}).i("transA", tx).i("transB", ty);
    g.skip_op(add);
    return;
  }
  if (tx && rx >= 2) x = swap_last_two(g, x, rx);
  if (ty && ry >= 2) y = swap_last_two(g, y, ry);
  g.node("MatMul", {x, y}, {g.out(op, "Out")});
}

void arg_extreme(GraphEmitter& g, const OpDesc& op) {
  std::string x = g.in(op, "X");
  const char* onnx = op.type == "argmax" ? "ArgMax" : "ArgMin";
  int64_t axis = op.attr<int64_t>("axis");
  bool keep = op.attr<bool>("keepdims");
  if (op.attr<bool>("flatten")) {
    x = g.apply("Reshape", {x, g.ints({-1})});
    axis = 0;
    keep = false;
  }
  g.node(onnx, {x}, {g.out(op, "Out")}).i("axis", axis).i("keepdims", keep);
}

void cumsum(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string axis = g.scalar(static_cast<double>(op.attr<int64_t>("axis")), DType::kI64);
  g.node("CumSum", {x, axis}, {g.out(op, "Out")})
      .i("exclusive", op.attr<bool>("exclusive"))
      .i("reverse", op.attr<bool>("reverse"));
}

void top_k(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string k = g.ints({op.attr<int64_t>("k")});
  const std::string values = g.out(op, "Out");
  const std::string indices = g.has_out(op, "Indices") ? g.out(op, "Indices") : g.temp("indices");
  g.node("TopK", {x, k}, {values, indices})
      .i("axis", op.attr<int64_t>("axis"))
      .i("largest", op.attr<bool>("largest"))
      .i("sorted", op.attr<bool>("sorted"));
}

}  // namespace

void add_reduce_rules(RuleTable& t) {
  for (const auto& [type, onnx] : kReduce) t[type] = reduce;
  t["squared_l2_norm"] = squared_l2_norm;
  t["softmax"] = softmax;
  t["log_softmax"] = softmax;
  t["matmul"] = matmul;
  t["argmax"] = arg_extreme;
  t["argmin"] = arg_extreme;
  t["cumsum"] = cumsum;
  t["top_k"] = top_k;
}

}  // namespace skiff::onnx_export
