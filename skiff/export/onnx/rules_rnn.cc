// ONNX rules for the fused recurrent cells, written out as the products, sums and
// gate activations they compute (gate order as the skiff ops: LSTM i, f, g, o;
// GRU r, z, n).
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

}  // namespace

void add_rnn_rules(RuleTable& t) {
  t["lstm_cell"] = lstm_cell;
  t["gru_cell"] = gru_cell;
}

}  // namespace skiff::onnx_export
