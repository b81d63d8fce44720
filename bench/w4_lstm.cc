// W4 of the reference workloads (bench/README.md): one training step of an LSTM language
// model. ids [35, 20] -> embedding 10k x 200 -> 2-layer LSTM (hidden 200, zero initial
// state; skiff/api/rnn.h: while loops over the fused lstm_cell) -> linear 200 -> 10k ->
// softmax_with_cross_entropy -> mean; append_backward, clip_by_global_norm 0.25, SGD
// (lr 1). fp32, 2 threads (--threads N: another count). Parameter values and ids come from fixed
// formulas shared with bench/w4_peers.py, so the losses of the first steps can be compared across
// frameworks. Prints "RESULT skiff <ms per step>" and "LOSS skiff <first> <after 3 steps>" for
// bench/compare_w4.py.
//
//   w4_lstm [reps=7] [--breakdown] [--threads 2]   # --breakdown: also time the parts
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/api/rnn.h"
#include "skiff/autodiff/backward.h"
#include "skiff/autodiff/optimizer.h"
#include "skiff/runtime/executor.h"

namespace {

using skiff::BlockBuilder;
using skiff::DType;
using skiff::Program;
using skiff::Scope;
using skiff::Tensor;

constexpr int64_t kVocab = 10000, kEmbed = 200, kHidden = 200, kLayers = 2, kSteps = 35,
                  kBatch = 20;
constexpr double kClipNorm = 0.25, kLearningRate = 1.0;
constexpr int kLossSteps = 3;

// [rows, cols] float32 with w[r][c] = scale * sin(a r + b c + phase) (bench/w4_peers.py's
// values()).
Tensor grid(int64_t rows, int64_t cols, double scale, double a, double b, double phase) {
  Tensor t = Tensor::empty({rows, cols}, DType::kF32);
  float* p = t.data<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      p[r * cols + c] = static_cast<float>(scale * std::sin(a * r + b * c + phase));
  return t;
}

Tensor row(int64_t cols, double scale, double b, double phase) {
  Tensor t = grid(1, cols, scale, 0.0, b, phase);
  t.reshape({cols});
  return t;
}

// Token t of sequence b is (t * 131 + b * 977 + 7) mod V; labels are the next tokens.
Tensor tokens(int64_t first_step, const skiff::Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::kI64);
  int64_t* p = t.data<int64_t>();
  for (int64_t s = 0; s < kSteps; ++s)
    for (int64_t b = 0; b < kBatch; ++b)
      p[s * kBatch + b] = ((s + first_step) * 131 + b * 977 + 7) % kVocab;
  return t;
}

// The 2-layer LSTM over x [T, B, E]; returns its outputs [T, B, H].
std::string lstm_part(BlockBuilder& b, const std::string& x, Program* startup) {
  skiff::RnnOptions o;
  o.hidden = kHidden;
  o.num_layers = kLayers;
  o.name = "lstm";
  return skiff::lstm_layer(b, x, o, startup).outputs;
}

// Linear 200 -> 10k over every position of h [T, B, H], softmax cross-entropy against
// "labels", mean; returns the loss.
std::string output_part(BlockBuilder& b, const std::string& h, Program* startup) {
  b.data("labels", DType::kI64, {kSteps * kBatch, 1});
  std::string flat =
      b.apply("reshape", {{"X", {h}}}, {{"shape", std::vector<int64_t>{-1, kHidden}}});
  std::string w_out = b.parameter("w_out", DType::kF32, {kHidden, kVocab}, startup);
  std::string b_out = b.parameter("b_out", DType::kF32, {kVocab}, startup);
  std::string logits =
      b.apply("elementwise_add",
              {{"X", {b.apply("matmul", {{"X", {flat}}, {"Y", {w_out}}})}}, {"Y", {b_out}}});
  std::string softmax = b.unique_name("softmax"), losses = b.unique_name("losses");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"labels"}}},
       {{"Softmax", {softmax}}, {"Loss", {losses}}});
  return b.apply("reduce_mean", {{"X", {losses}}});
}

struct Model {
  Program main, startup;
  std::string loss;
};

// The language model; with `train`, its backward, clipping and SGD updates too.
Model build_model(bool train) {
  Model m;
  BlockBuilder b(&m.main);
  b.data("ids", DType::kI64, {kSteps, kBatch});
  std::string table = b.parameter("embedding", DType::kF32, {kVocab, kEmbed}, &m.startup);
  std::string x = b.apply("embedding", {{"W", {table}}, {"Ids", {"ids"}}});
  m.loss = output_part(b, lstm_part(b, x, &m.startup), &m.startup);
  if (!train) return m;
  auto param_grads = skiff::append_backward(m.main, m.loss);
  std::vector<std::string> grads;
  for (const auto& pg : param_grads) grads.push_back(pg.second);
  b.op("clip_by_global_norm", {{"X", grads}}, {{"Out", grads}}, {{"clip_norm", kClipNorm}});
  skiff::OptimizerConfig sgd;
  sgd.learning_rate = kLearningRate;
  skiff::append_optimizer(m.main, m.startup, param_grads, sgd);
  return m;
}

// Overwrites the initialized parameters with the shared fixed values.
void set_parameters(Scope* scope) {
  auto set = [&](const std::string& name, Tensor value) {
    scope->var(name)->set(std::move(value));
  };
  set("embedding", grid(kVocab, kEmbed, 0.1, 0.37, 0.11, 0.05));
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = "lstm_l" + std::to_string(l) + "_";
    set(p + "weight_ih", grid(kEmbed, 4 * kHidden, 0.07, 0.71, 1.31, 0.2 * l + 0.1));
    set(p + "weight_hh", grid(kHidden, 4 * kHidden, 0.07, 1.17, 0.53, 0.2 * l + 0.3));
    set(p + "bias", row(4 * kHidden, 0.05, 0.29, 0.2 * l));
  }
  set("w_out", grid(kHidden, kVocab, 0.07, 0.43, 0.97, 0.4));
  set("b_out", row(kVocab, 0.01, 0.13, 0.0));
}

double median_ms(int reps, const std::function<void()>& fn) {
  fn();
  fn();
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Milliseconds per run of a part of the model, forward only or with its backward (no
// updates), in `scope` (which holds the parameters and feeds).
double time_part(bool lstm, bool backward, int reps, Scope* scope) {
  Program p, unused_startup;
  BlockBuilder b(&p);
  std::string loss;
  if (lstm) {
    b.data("x", DType::kF32, {kSteps, kBatch, kEmbed});
    loss = b.apply("reduce_sum", {{"X", {lstm_part(b, "x", &unused_startup)}}});
  } else {
    b.data("h", DType::kF32, {kSteps, kBatch, kHidden});
    loss = output_part(b, "h", &unused_startup);
  }
  if (backward) skiff::append_backward(p, loss);
  skiff::Executor exe;
  auto prepared = exe.prepare(p, {loss});
  return median_ms(reps, [&] { exe.run(*prepared, scope); });
}

// Where a step's time goes: the forward alone, and each part forward and backward.
void print_breakdown(double step_ms, int reps, Scope* scope) {
  Model fwd = build_model(false);
  skiff::Executor exe;
  auto prepared = exe.prepare(fwd.main, {fwd.loss});
  const double forward = median_ms(reps, [&] { exe.run(*prepared, scope); });
  const Tensor activations = grid(kSteps * kBatch, kEmbed, 0.5, 0.3, 0.7, 0.0);
  Tensor x = activations.clone(), h = activations.clone();
  x.reshape({kSteps, kBatch, kEmbed});
  h.reshape({kSteps, kBatch, kHidden});
  scope->var("x")->set(x);
  scope->var("h")->set(h);
  const double lstm_fwd = time_part(true, false, reps, scope);
  const double lstm_all = time_part(true, true, reps, scope);
  const double out_fwd = time_part(false, false, reps, scope);
  const double out_all = time_part(false, true, reps, scope);
  std::printf("  breakdown (ms)                          forward  fwd+bwd\n");
  std::printf("    whole step                          %9.3f %8.3f\n", forward, step_ms);
  std::printf("    2-layer LSTM (while loops)          %9.3f %8.3f\n", lstm_fwd, lstm_all);
  std::printf("    linear 200->10k + softmax CE + mean %9.3f %8.3f\n", out_fwd, out_all);
  std::printf("    rest: embedding, clipping, SGD      %9s %8.3f\n", "",
              step_ms - lstm_all - out_all);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7, threads = 2;
  bool breakdown = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--breakdown") {
      breakdown = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else {
      reps = std::max(5, std::atoi(argv[i]));
    }
  }
  omp_set_num_threads(threads);

  Model m = build_model(true);
  skiff::Executor exe;
  Scope scope;
  exe.run(m.startup, &scope);
  set_parameters(&scope);
  skiff::feed(m.main, &scope, "ids", tokens(0, {kSteps, kBatch}));
  skiff::feed(m.main, &scope, "labels", tokens(1, {kSteps * kBatch, 1}));
  auto step = exe.prepare(m.main, {m.loss});

  std::vector<float> losses;
  for (int s = 0; s <= kLossSteps; ++s) {
    exe.run(*step, &scope);
    losses.push_back(skiff::fetch(scope, m.loss).item<float>());
  }
  const double ms = median_ms(reps, [&] { exe.run(*step, &scope); });

  std::printf(
      "W4 LSTM language model training step (V %lld, embed/hidden %lld, %lld layers, "
      "seq %lld, batch %lld), %d reps, %d threads\n",
      static_cast<long long>(kVocab), static_cast<long long>(kHidden),
      static_cast<long long>(kLayers), static_cast<long long>(kSteps),
      static_cast<long long>(kBatch), reps, threads);
  std::printf("  skiff (interpreter)  %9.3f ms per step\n", ms);
  std::printf("  loss: first step %.6f, after %d steps %.6f\n", losses[0], kLossSteps,
              losses[kLossSteps]);
  if (breakdown) print_breakdown(ms, reps, &scope);
  std::printf("RESULT skiff %.4f\n", ms);
  std::printf("LOSS skiff %.6f %.6f\n", losses[0], losses[kLossSteps]);
  if (!(std::isfinite(losses[0]) && losses[kLossSteps] < losses[0])) {
    std::fprintf(stderr, "W4: the loss did not fall (%.6f -> %.6f)\n", losses[0],
                 losses[kLossSteps]);
    return 1;
  }
  return 0;
}
