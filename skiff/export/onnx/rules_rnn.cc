// ONNX rules for the recurrent ops: the fused cells written out as the products, sums
// and gate activations they compute, and the whole layers (lstm, gru) as ONNX's own LSTM
// and GRU nodes (gate order as the skiff ops: LSTM i, f, g, o; GRU r, z, n; ONNX's:
// LSTM i, o, f, c; GRU z, r, h).
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

// The input part of the gates: Gates_x, or X · Weight_ih.
std::string input_gates(GraphEmitter& g, const OpDesc& op) {
  if (g.has_in(op, "Gates_x")) return g.in(op, "Gates_x");
  SKIFF_CHECK(g.has_in(op, "X") && g.has_in(op, "Weight_ih"), "needs Gates_x, or X with Weight_ih");
  return g.apply("MatMul", {g.in(op, "X"), g.in(op, "Weight_ih")});
}

void lstm_cell(GraphEmitter& g, const OpDesc& op) {
  const std::string h = g.in(op, "H"), c = g.in(op, "C"), w_hh = g.in(op, "Weight_hh");
  std::string pre = g.apply("Add", {input_gates(g, op), g.apply("MatMul", {h, w_hh})});
  if (g.has_in(op, "Bias")) pre = g.apply("Add", {pre, g.in(op, "Bias")});
  const std::vector<std::string> parts = split_equal(g, pre, 4, 1);
  const std::string i = g.apply("Sigmoid", {parts[0]});
  const std::string f = g.apply("Sigmoid", {parts[1]});
  const std::string cand = g.apply("Tanh", {parts[2]});
  const std::string o = g.apply("Sigmoid", {parts[3]});
  const std::string kept = g.apply("Mul", {f, c});
  const std::string added = g.apply("Mul", {i, cand});
  const std::string c_out = g.out(op, "C_out");
  g.node("Add", {kept, added}, {c_out});
  g.node("Mul", {o, g.apply("Tanh", {c_out})}, {g.out(op, "H_out")});
  if (g.has_out(op, "Gates")) {
    g.node("Concat", {i, f, cand, o}, {g.out(op, "Gates")}).i("axis", 1);
  }
}

void gru_cell(GraphEmitter& g, const OpDesc& op) {
  const std::string h = g.in(op, "H"), w_hh = g.in(op, "Weight_hh");
  std::string a = input_gates(g, op);
  if (g.has_in(op, "Bias_ih")) a = g.apply("Add", {a, g.in(op, "Bias_ih")});
  std::string b = g.apply("MatMul", {h, w_hh});
  if (g.has_in(op, "Bias_hh")) b = g.apply("Add", {b, g.in(op, "Bias_hh")});
  const std::vector<std::string> as = split_equal(g, a, 3, 1);
  const std::vector<std::string> bs = split_equal(g, b, 3, 1);
  const std::string r = g.apply("Sigmoid", {g.apply("Add", {as[0], bs[0]})});
  const std::string z = g.apply("Sigmoid", {g.apply("Add", {as[1], bs[1]})});
  const std::string n = g.apply("Tanh", {g.apply("Add", {as[2], g.apply("Mul", {r, bs[2]})})});
  // (1 - z) * n + z * h = n + z * (h - n)
  const std::string mixed = g.apply("Mul", {z, g.apply("Sub", {h, n})});
  g.node("Add", {n, mixed}, {g.out(op, "H_out")});
  if (g.has_out(op, "Gates")) {
    g.node("Concat", {r, z, n, bs[2]}, {g.out(op, "Gates")}).i("axis", 1);
  }
}

// ---- whole layers

// [1, G * Hd, G * Hd]: the permutation that puts skiff's gate blocks in ONNX's order, as
// the input weight W of an ONNX node whose input is Gates_x (so W · gates_x picks them).
std::string gate_permutation(GraphEmitter& g, const std::vector<int>& skiff_block, int64_t hd,
                             DType dtype) {
  const int64_t width = static_cast<int64_t>(skiff_block.size()) * hd;
  std::vector<double> values(static_cast<size_t>(width * width), 0.0);
  for (size_t k = 0; k < skiff_block.size(); ++k)
    for (int64_t j = 0; j < hd; ++j) values[(k * hd + j) * width + skiff_block[k] * hd + j] = 1.0;
  return g.model().constant("_gate_order", tensor_proto(Shape{1, width, width}, dtype, values));
}

// The gate blocks of `x` (split on `axis`) in ONNX's order.
std::string reorder_gates(GraphEmitter& g, const std::string& x,
                          const std::vector<int>& skiff_block, int64_t axis) {
  if (skiff_block.size() == 1) return x;
  const std::vector<std::string> parts =
      split_equal(g, x, static_cast<int>(skiff_block.size()), axis);
  std::vector<std::string> ordered;
  for (int k : skiff_block) ordered.push_back(parts[k]);
  std::string out = g.temp("gates");
  g.node("Concat", ordered, {out}).i("axis", axis);
  return out;
}

std::string unsqueeze0(GraphEmitter& g, const std::string& x) {
  std::string out = g.temp("unsqueezed");
  if (g.opset() >= 13) {
    g.node("Unsqueeze", {x, g.ints({0})}, {out});
  } else {
    g.node("Unsqueeze", {x}, {out}).ints("axes", {0});
  }
  return out;
}

void squeeze_into(GraphEmitter& g, const std::string& x, int64_t axis, const std::string& out) {
  if (g.opset() >= 13) {
    g.node("Squeeze", {x, g.ints({axis})}, {out});
  } else {
    g.node("Squeeze", {x}, {out}).ints("axes", {axis});
  }
}

enum class Layer { kLstm, kGru, kSimple };

// An ONNX LSTM / GRU / RNN node over Gates_x: W the gate permutation, R = Weight_hh's
// blocks reordered and transposed, B the biases reordered ([input side, hidden side]).
void layer(GraphEmitter& g, const OpDesc& op, Layer kind) {
  const bool lstm = kind == Layer::kLstm;
  const std::vector<int> order = lstm                  ? std::vector<int>{0, 3, 1, 2}
                                 : kind == Layer::kGru ? std::vector<int>{1, 0, 2}
                                                       : std::vector<int>{0};
  const DType dtype = g.dtype(op, "Gates_x");
  const Shape w_hh = g.var_desc(op.first_input("Weight_hh")).shape;
  SKIFF_CHECK(w_hh.rank() == 2 && w_hh[0] > 0, op.type, ": ONNX needs the hidden size, but ",
              "Weight_hh has shape ", w_hh);
  const int64_t hd = w_hh[0];
  std::string r = g.temp("recurrence");
  g.node("Transpose", {reorder_gates(g, g.in(op, "Weight_hh"), order, 1)}, {r})
      .ints("perm", {1, 0});
  std::string bias;
  const std::string zeros = g.filled(Shape{static_cast<int64_t>(order.size()) * hd}, 0.0, dtype);
  auto ordered_or_zeros = [&](const char* slot) {
    return g.has_in(op, slot) ? reorder_gates(g, g.in(op, slot), order, 0) : zeros;
  };
  if (lstm && g.has_in(op, "Bias")) bias = ordered_or_zeros("Bias");
  if (kind == Layer::kGru && (g.has_in(op, "Bias_ih") || g.has_in(op, "Bias_hh"))) {
    bias = g.temp("bias");
    g.node("Concat", {ordered_or_zeros("Bias_ih"), ordered_or_zeros("Bias_hh")}, {bias})
        .i("axis", 0);
  } else if (!bias.empty()) {
    std::string both = g.temp("bias");
    g.node("Concat", {bias, zeros}, {both}).i("axis", 0);
    bias = both;
  }
  std::string lengths;
  if (g.has_in(op, "Sequence_length")) {
    lengths = g.temp("lengths");
    g.node("Cast", {g.in(op, "Sequence_length")}, {lengths}).i("to", pb::TensorProto::INT32);
  }
  std::vector<std::string> inputs = {g.in(op, "Gates_x"),
                                     gate_permutation(g, order, hd, dtype),
                                     unsqueeze0(g, r),
                                     bias.empty() ? "" : unsqueeze0(g, bias),
                                     lengths,
                                     unsqueeze0(g, g.in(op, "H0"))};
  if (lstm) inputs.push_back(unsqueeze0(g, g.in(op, "C0")));
  std::vector<std::string> outputs = {g.temp("y"), g.temp("y_h")};
  if (lstm) outputs.push_back(g.temp("y_c"));
  const char* onnx_op = lstm ? "LSTM" : kind == Layer::kGru ? "GRU" : "RNN";
  NodeWriter node = g.node(onnx_op, inputs, outputs);
  node.i("hidden_size", hd).s("direction", op.attr<bool>("is_reverse") ? "reverse" : "forward");
  if (kind == Layer::kGru) node.i("linear_before_reset", 1);  // n = tanh(a_n + r * (h W + b))
  if (kind == Layer::kSimple) {
    const bool relu = op.attr<std::string>("activation") == "relu";
    node.strings("activations", {relu ? "Relu" : "Tanh"});
  }
  squeeze_into(g, outputs[0], 1, g.out(op, "Out"));
  squeeze_into(g, outputs[1], 0, g.out(op, "H_last"));
  if (lstm) squeeze_into(g, outputs[2], 0, g.out(op, "C_last"));
}

void lstm_layer(GraphEmitter& g, const OpDesc& op) { layer(g, op, Layer::kLstm); }
void gru_layer(GraphEmitter& g, const OpDesc& op) { layer(g, op, Layer::kGru); }
void simple_rnn_layer(GraphEmitter& g, const OpDesc& op) { layer(g, op, Layer::kSimple); }

}  // namespace

void add_rnn_rules(RuleTable& t) {
  t["lstm_cell"] = lstm_cell;
  t["gru_cell"] = gru_cell;
  t["lstm"] = lstm_layer;
  t["gru"] = gru_layer;
  t["simple_rnn"] = simple_rnn_layer;
}

}  // namespace skiff::onnx_export
