// ONNX rules for loss ops (so that a saved program that computes its loss exports
// whole): mse_loss, sigmoid_cross_entropy_with_logits, softmax_with_cross_entropy
// and nll_loss, written as the formulas their docs give.
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

void mse_loss(GraphEmitter& g, const OpDesc& op) {
  const std::string diff = g.apply("Sub", {g.in(op, "X"), g.in(op, "Label")});
  g.node("Mul", {diff, diff}, {g.out(op, "Out")});
}

// `value` where `label` is not ignore_index, 0 where it is.
std::string unless_ignored(GraphEmitter& g, const std::string& value, const std::string& label,
                           DType label_dtype, int64_t ignore_index, DType t) {
  const std::string ignored =
      g.apply("Equal", {label, g.scalar(static_cast<double>(ignore_index), label_dtype)});
  return g.apply("Where", {ignored, g.scalar(0, t), value});
}

// max(x, 0) - x z + log(1 + exp(-|x|)), 0 where z is ignore_index; with normalize,
// divided by the number of elements not ignored.
void sigmoid_cross_entropy(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X"), z = g.in(op, "Label");
  const DType t = g.dtype(op, "X");
  const int64_t ignore = op.attr<int64_t>("ignore_index");
  const std::string zero = g.scalar(0, t);
  const std::string softplus = g.apply("Softplus", {g.apply("Neg", {g.apply("Abs", {x})})});
  const std::string linear = g.apply("Sub", {g.apply("Max", {x, zero}), g.apply("Mul", {x, z})});
  const std::string loss = unless_ignored(g, g.apply("Add", {linear, softplus}), z, t, ignore, t);
  if (!op.attr<bool>("normalize")) {
    g.node("Identity", {loss}, {g.out(op, "Out")});
    return;
  }
  const std::string kept = g.temp("kept");
  const std::string not_ignored =
      g.apply("Not", {g.apply("Equal", {z, g.scalar(static_cast<double>(ignore), t)})});
  g.node("Cast", {not_ignored}, {kept}).i("to", onnx_elem_type(t));
  const std::string count = g.temp("count");
  reduce_node(g, "ReduceSum", kept, {}, false, count);
  // 0 / 0 is 0 here: divide by max(count, 1) (the losses are all 0 when count is 0).
  const std::string divisor = g.apply("Max", {count, g.scalar(1, t)});
  g.node("Div", {loss, divisor}, {g.out(op, "Out")});
}

// Softmax along `axis`, and the loss: -log softmax at the label (hard labels, 0 where
// ignored) or -sum(label * log softmax) (soft labels), the axis kept as size 1.
void softmax_cross_entropy(GraphEmitter& g, const OpDesc& op) {
  const std::string logits = g.in(op, "Logits"), label = g.in(op, "Label");
  const DType t = g.dtype(op, "Logits");
  const int rank = g.shape(op, "Logits").rank();
  const int64_t axis = normalize_axis(op.attr<int64_t>("axis"), rank);
  std::string log_p = g.temp("log_softmax");
  g.node("LogSoftmax", {logits}, {log_p}).i("axis", axis);
  std::string loss;
  if (op.attr<bool>("soft_label")) {
    const std::string sum = g.temp("sum");
    reduce_node(g, "ReduceSum", g.apply("Mul", {label, log_p}), {axis}, true, sum);
    loss = g.apply("Neg", {sum});
  } else {
    const DType lt = g.dtype(op, "Label");
    const int64_t ignore = op.attr<int64_t>("ignore_index");
    // Ignored labels index class 0 (in range) and their loss is then zeroed.
    const std::string ignored =
        g.apply("Equal", {label, g.scalar(static_cast<double>(ignore), lt)});
    const std::string safe = g.apply("Where", {ignored, g.scalar(0, lt), label});
    const std::string picked = g.temp("picked");
    g.node("GatherElements", {log_p, safe}, {picked}).i("axis", axis);
    loss = g.apply("Where", {ignored, g.scalar(0, t), g.apply("Neg", {picked})});
  }
  g.node("Identity", {loss}, {g.out(op, "Loss")});
  if (g.has_out(op, "Softmax")) g.node("Exp", {log_p}, {g.out(op, "Softmax")});
}

void nll_loss(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  std::string label = g.in(op, "Label");
  if (g.shape(op, "Label").rank() == 2) label = g.apply("Reshape", {label, g.ints({-1})});
  const std::string reduction = op.attr<std::string>("reduction");
  SKIFF_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean", "reduction ",
              reduction, " is unknown");
  const int64_t ignore = op.attr<int64_t>("ignore_index");
  std::vector<std::string> inputs = {x, label};
  if (g.has_in(op, "Weight")) inputs.push_back(g.in(op, "Weight"));
  g.node("NegativeLogLikelihoodLoss", inputs, {g.out(op, "Out")})
      .s("reduction", reduction)
      .i("ignore_index", ignore);
  if (!g.has_out(op, "Total_weight")) return;
  // The summed weight of the samples not ignored.
  const DType lt = g.dtype(op, "Label"), t = g.dtype(op, "X");
  const std::string ignored = g.apply("Equal", {label, g.scalar(static_cast<double>(ignore), lt)});
  const std::string safe = g.apply("Where", {ignored, g.scalar(0, lt), label});
  std::string w;
  if (g.has_in(op, "Weight")) {
    w = g.temp("weights");
    g.node("Gather", {inputs[2], safe}, {w}).i("axis", 0);
  } else {
    w = g.temp("weights");
    g.node("ConstantOfShape", {g.apply("Shape", {label})}, {w})
        .t("value", tensor_proto(Shape{1}, t, {1}));
  }
  reduce_node(g, "ReduceSum", g.apply("Where", {ignored, g.scalar(0, t), w}), {}, false,
              g.out(op, "Total_weight"));
}

}  // namespace

void add_loss_rules(RuleTable& t) {
  t["mse_loss"] = mse_loss;
  t["sigmoid_cross_entropy_with_logits"] = sigmoid_cross_entropy;
  t["softmax_with_cross_entropy"] = softmax_cross_entropy;
  t["nll_loss"] = nll_loss;
}

}  // namespace skiff::onnx_export
