// Training programs the codegen tests compile: forward, backward (append_backward) and an
// optimizer (append_optimizer) in one program, with every persistable variable (parameters
// and optimizer state, as the startup program made them, parameters then set to fixed
// values) as the model's parameters.
#pragma once

#include <string>
#include <vector>

#include "skiff/api/optimizer.h"
#include "skiff/api/rnn.h"
#include "skiff/autodiff/backward.h"
#include "tests/codegen/programs.h"

namespace skiff::testing {

struct TrainingModel {
  ModelWithParams model;  // params: every persistable variable of the main program
  std::vector<std::string> trainable;
  std::string loss;
};

// Appends backward and `optimizer`, runs the startup program, sets each trainable
// parameter to a fixed wave and records all persistables.
inline void finish_training(TrainingModel* t, Program* startup, const std::string& loss,
                            const OptimizerConfig& optimizer, DType dtype) {
  t->loss = loss;
  const auto param_grads = append_backward(t->model.program, loss);
  append_optimizer(t->model.program, *startup, param_grads, optimizer);
  Scope scope;
  Executor exe;
  exe.run(*startup, &scope);
  double phase = 0.1;
  for (const auto& [param, grad] : param_grads) {
    const Tensor& init = *scope.find_var(param)->tensor();
    const double scale = init.rank() > 1 ? 1.0 / std::sqrt(double(init.dim(0))) : 0.05;
    scope.var(param)->set(wave(init.shape(), dtype, scale, phase += 0.7));
    t->trainable.push_back(param);
  }
  for (const Block& block : t->model.program.blocks())
    for (const auto& [name, var] : block.vars)
      if (var.persistable && var.kind == VarKind::kDenseTensor)
        t->model.params.push_back({name, scope.find_var(name)->tensor()->clone()});
  t->model.program.fetch_names = {loss};
}

// W2's training step on x [-1, widths[0]] and int64 labels [-1, 1]: fc-relu layers, a last
// fc, softmax cross-entropy averaged over the batch.
inline TrainingModel mlp_training_model(DType dtype, const std::vector<int64_t>& widths,
                                        const OptimizerConfig& optimizer) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {-1, widths[0]});
  b.data("label", DType::kI64, {-1, 1});
  std::string h = "x";
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::string prefix = "fc" + std::to_string(l);
    const std::string w = b.parameter(prefix + "_w", dtype, {widths[l], widths[l + 1]}, &startup,
                                      Initializer::constant(0));
    const std::string bias =
        b.parameter(prefix + "_b", dtype, {widths[l + 1]}, &startup, Initializer::constant(0));
    h = b.apply("elementwise_add",
                {{"X", {b.apply("matmul", {{"X", {h}}, {"Y", {w}}})}}, {"Y", {bias}}});
    if (l + 2 < widths.size()) h = b.apply("relu", {{"X", {h}}});
  }
  const std::string softmax = b.unique_name("softmax"), xent = b.unique_name("xent");
  b.op("softmax_with_cross_entropy", {{"Logits", {h}}, {"Label", {"label"}}},
       {{"Softmax", {softmax}}, {"Loss", {xent}}});
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {xent}}}), optimizer, dtype);
  return t;
}

// A W3-like CNN training step on x [-1, 1, 8, 8]: conv3x3(1->4, pad 1)+bias, relu, maxpool
// 2, flatten, fc(64->3), softmax cross-entropy.
inline TrainingModel cnn_training_model(DType dtype, const OptimizerConfig& optimizer) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {-1, 1, 8, 8});
  b.data("label", DType::kI64, {-1, 1});
  const std::string w =
      b.parameter("conv_w", dtype, {4, 1, 3, 3}, &startup, Initializer::constant(0));
  const std::string bias = b.parameter("conv_b", dtype, {4}, &startup, Initializer::constant(0));
  const std::string conv = b.unique_name("conv");
  b.op("conv2d", {{"Input", {"x"}}, {"Filter", {w}}, {"Bias", {bias}}}, {{"Output", {conv}}},
       {{"strides", std::vector<int64_t>{1, 1}}, {"paddings", std::vector<int64_t>{1, 1}}});
  const std::string pool = b.apply("pool2d", {{"X", {b.apply("relu", {{"X", {conv}}})}}},
                                   {{"pooling_type", std::string("max")},
                                    {"ksize", std::vector<int64_t>{2, 2}},
                                    {"strides", std::vector<int64_t>{2, 2}}});
  const std::string flat = b.apply("flatten", {{"X", {pool}}}, {{"start_axis", int64_t{1}}});
  const std::string fc_w = b.parameter("fc_w", dtype, {64, 3}, &startup, Initializer::constant(0));
  const std::string fc_b = b.parameter("fc_b", dtype, {3}, &startup, Initializer::constant(0));
  const std::string logits =
      b.apply("elementwise_add",
              {{"X", {b.apply("matmul", {{"X", {flat}}, {"Y", {fc_w}}})}}, {"Y", {fc_b}}});
  const std::string softmax = b.unique_name("softmax"), xent = b.unique_name("xent");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"label"}}},
       {{"Softmax", {softmax}}, {"Loss", {xent}}});
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {xent}}}), optimizer, dtype);
  return t;
}

// W1 trained: h = tanh(x W + h) for `steps` steps of a while loop from h = 0, loss =
// mean(h); backward runs through the loop (while_grad over the kept steps), then SGD on x
// and W.
inline TrainingModel w1_training_model(DType dtype, int64_t steps) {
  using Ints = std::vector<int64_t>;
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  const std::string type = dtype_name(dtype);
  b.parameter("x", dtype, {1, 16}, &startup, Initializer::constant(0));
  b.parameter("W", dtype, {16, 16}, &startup, Initializer::constant(0));
  b.op("fill_constant", {}, {{"Out", {"h"}}},
       {{"shape", Ints{1, 16}}, {"value", 0.0}, {"dtype", type}});
  b.op("fill_constant", {}, {{"Out", {"i"}}},
       {{"shape", Ints{1}}, {"value", 0.0}, {"dtype", std::string("int64")}});
  b.op("fill_constant", {}, {{"Out", {"steps"}}},
       {{"shape", Ints{1}}, {"value", double(steps)}, {"dtype", std::string("int64")}});
  b.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  b.while_loop("cond", [](BlockBuilder& body) {
    std::string xw = body.apply("matmul", {{"X", {"x"}}, {"Y", {"W"}}});
    std::string pre = body.apply("elementwise_add", {{"X", {xw}}, {"Y", {"h"}}});
    body.assign(body.apply("tanh", {{"X", {pre}}}), "h");
    body.op("increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {"i"}}, {"Y", {"steps"}}}, {{"Out", {"cond"}}});
  });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {"h"}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.5), dtype);
  return t;
}

// An if/else trained: h = x W, then tanh(h) when sum(h) > 0, else 3 h; loss = mean of the
// result; backward runs through the branch that ran (conditional_block_grad, select_input
// gradients summed), then SGD on W.
inline TrainingModel if_else_training_model(DType dtype) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("x", dtype, {2, 3});
  b.parameter("w", dtype, {3, 3}, &startup, Initializer::constant(0));
  const std::string h = b.apply("matmul", {{"X", {"x"}}, {"Y", {"w"}}});
  const std::string total = b.apply("reduce_sum", {{"X", {h}}}, {{"reduce_all", true}});
  const std::string zero = b.apply("fill_constant", {},
                                   {{"shape", std::vector<int64_t>{1}},
                                    {"value", 0.0},
                                    {"dtype", std::string(dtype_name(dtype))}});
  const std::string pred = b.apply("greater_than", {{"X", {total}}, {"Y", {zero}}});
  const std::vector<std::string> outs = b.if_else(
      pred,
      [&](BlockBuilder& yes) {
        return std::vector<std::string>{yes.apply("tanh", {{"X", {h}}})};
      },
      [&](BlockBuilder& no) {
        return std::vector<std::string>{no.apply("scale", {{"X", {h}}}, {{"scale", 3.0}})};
      });
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {outs[0]}}}, {{"reduce_all", true}}),
                  OptimizerConfig("sgd", 0.1), dtype);
  return t;
}

// An LSTM language model's step on int64 ids [steps, batch]: embedding vocab x width ->
// lstm_layer (2 layers, hidden `width`, zero initial state; tensor arrays in while loops;
// gru_layer instead when !lstm) -> fc to vocab at every position -> softmax cross-entropy
// against "labels" [steps * batch, 1], mean; gradients clipped to global norm 0.25, then SGD.
inline TrainingModel lstm_lm_training_model(DType dtype, int64_t steps, int64_t batch,
                                            int64_t vocab, int64_t width, bool lstm = true) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("ids", DType::kI64, {steps, batch});
  b.data("labels", DType::kI64, {steps * batch, 1});
  const std::string table =
      b.parameter("embedding", dtype, {vocab, width}, &startup, Initializer::constant(0));
  const std::string x = b.apply("embedding", {{"W", {table}}, {"Ids", {"ids"}}});
  RnnOptions o;
  o.hidden = width;
  o.num_layers = 2;
  o.name = lstm ? "lstm" : "gru";
  const std::string h =
      (lstm ? lstm_layer(b, x, o, &startup) : gru_layer(b, x, o, &startup)).outputs;
  const std::string flat =
      b.apply("reshape", {{"X", {h}}}, {{"shape", std::vector<int64_t>{-1, width}}});
  const std::string w = b.parameter("w_out", dtype, {width, vocab}, &startup);
  const std::string bias = b.parameter("b_out", dtype, {vocab}, &startup);
  const std::string logits = b.apply(
      "elementwise_add", {{"X", {b.apply("matmul", {{"X", {flat}}, {"Y", {w}}})}}, {"Y", {bias}}});
  const std::string softmax = b.unique_name("softmax"), xent = b.unique_name("xent");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"labels"}}},
       {{"Softmax", {softmax}}, {"Loss", {xent}}});
  OptimizerConfig sgd("sgd", 1.0);
  sgd.clip_global_norm = 0.25;
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {xent}}}), sgd, dtype);
  return t;
}

// A W5-like sparse CTR step on int64 ids [-1, fields]: embedding rows x dim with a sparse
// gradient (selected rows), concatenated per example, fc(fields * dim -> 8)-relu-fc(8 -> 1),
// sigmoid cross-entropy with logits against "click" [-1, 1], mean; `optimizer` applies the
// table's selected rows. With lookups = 2 the ids are looked up twice and the features
// added, so the two sparse gradients are summed.
inline TrainingModel sparse_ctr_training_model(DType dtype, int64_t fields, int64_t rows,
                                               int64_t dim, int lookups,
                                               const OptimizerConfig& optimizer) {
  TrainingModel t;
  Program startup;
  BlockBuilder b(&t.model.program);
  b.data("ids", DType::kI64, {-1, fields});
  b.data("click", dtype, {-1, 1});
  const std::string table =
      b.parameter("table", dtype, {rows, dim}, &startup, Initializer::constant(0));
  std::string h;
  for (int l = 0; l < lookups; ++l) {
    const std::string looked_up = b.unique_name("looked_up");
    b.op("embedding", {{"W", {table}}, {"Ids", {"ids"}}}, {{"Out", {looked_up}}},
         {{"is_sparse", true}});
    const std::string features = b.apply("reshape", {{"X", {looked_up}}},
                                         {{"shape", std::vector<int64_t>{-1, fields * dim}}});
    h = h.empty() ? features : b.apply("elementwise_add", {{"X", {h}}, {"Y", {features}}});
  }
  const std::vector<int64_t> widths = {fields * dim, 8, 1};
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::string prefix = "fc" + std::to_string(l);
    const std::string w = b.parameter(prefix + "_w", dtype, {widths[l], widths[l + 1]}, &startup,
                                      Initializer::constant(0));
    const std::string bias =
        b.parameter(prefix + "_b", dtype, {widths[l + 1]}, &startup, Initializer::constant(0));
    h = b.apply("elementwise_add",
                {{"X", {b.apply("matmul", {{"X", {h}}, {"Y", {w}}})}}, {"Y", {bias}}});
    if (l + 2 < widths.size()) h = b.apply("relu", {{"X", {h}}});
  }
  const std::string xent =
      b.apply("sigmoid_cross_entropy_with_logits", {{"X", {h}}, {"Label", {"click"}}});
  finish_training(&t, &startup, b.apply("reduce_mean", {{"X", {xent}}}), optimizer, dtype);
  return t;
}

// int64 ids [batch, fields]: (13 e + 7 f + 3 f f) mod rows, so rows repeat across examples.
inline Tensor ctr_ids(int64_t batch, int64_t fields, int64_t rows) {
  Tensor t = Tensor::empty({batch, fields}, DType::kI64);
  for (int64_t e = 0; e < batch; ++e)
    for (int64_t f = 0; f < fields; ++f)
      t.data<int64_t>()[e * fields + f] = (13 * e + 7 * f + 3 * f * f) % rows;
  return t;
}

// Labels (7 r + 3) mod classes as int64 [batch, 1].
inline Tensor labels(int64_t batch, int64_t classes) {
  Tensor t = Tensor::empty({batch, 1}, DType::kI64);
  for (int64_t r = 0; r < batch; ++r) t.data<int64_t>()[r] = (7 * r + 3) % classes;
  return t;
}

}  // namespace skiff::testing
