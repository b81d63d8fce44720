// W4 of the reference workloads (bench/README.md): one training step of an LSTM language
// model. ids [35, 20] -> embedding 10k x 200 -> 2-layer LSTM (hidden 200, zero initial
// state; skiff/api/rnn.h: while loops over the fused lstm_cell) -> linear 200 -> 10k ->
// softmax_with_cross_entropy -> mean; append_backward, clip_by_global_norm 0.25, SGD
// (lr 1). fp32, 2 threads (--threads N: another count). Parameter values and ids come from fixed
// formulas shared with bench/w4_peers.py (bench/workloads.h: lstm_lm_training), so the losses of
// the first steps can be compared across frameworks. Prints "RESULT skiff <ms per step>" and
// "LOSS skiff <first> <after 3 steps>" for bench/compare_w4.py.
//
//   w4_lstm [reps=7] [--breakdown] [--threads 2]   # --breakdown: also time the parts
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/workloads.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"

namespace {

using skiff::BlockBuilder;
using skiff::DType;
using skiff::Program;
using skiff::Scope;
using skiff::Tensor;
using skiff::bench::kLstmBatch;
using skiff::bench::kLstmEmbed;
using skiff::bench::kLstmHidden;
using skiff::bench::kLstmLayers;
using skiff::bench::kLstmSeq;
using skiff::bench::kLstmVocab;
using skiff::bench::median_ms;

// The loss is printed after the first step and after this many more.
constexpr int kLossSteps = 3;

// Milliseconds per run of a part of the model, forward only or with its backward (no
// updates), in `scope` (which holds the parameters and feeds).
double time_part(bool lstm, bool backward, int reps, Scope* scope) {
  Program p, unused_startup;
  BlockBuilder b(&p);
  std::string loss;
  if (lstm) {
    b.data("x", DType::kF32, {kLstmSeq, kLstmBatch, kLstmEmbed});
    loss = b.apply("reduce_sum", {{"X", {skiff::bench::lstm_stack(b, "x", &unused_startup)}}});
  } else {
    b.data("h", DType::kF32, {kLstmSeq, kLstmBatch, kLstmHidden});
    loss = skiff::bench::lstm_output_loss(b, "h", &unused_startup);
  }
  if (backward) skiff::append_backward(p, loss);
  skiff::Executor exe;
  auto prepared = exe.prepare(p, {loss});
  return median_ms(reps, [&] { exe.run(*prepared, scope); });
}

// Where a step's time goes: the forward alone, and each part forward and backward.
void print_breakdown(double step_ms, int reps, Scope* scope) {
  skiff::bench::ModelProgram fwd = skiff::bench::lstm_lm_model(false);
  skiff::Executor exe;
  auto prepared = exe.prepare(fwd.main, {fwd.loss});
  const double forward = median_ms(reps, [&] { exe.run(*prepared, scope); });
  const Tensor activations =
      skiff::bench::sine_grid(kLstmSeq * kLstmBatch, kLstmEmbed, 0.5, 0.3, 0.7, 0.0);
  Tensor x = activations.clone(), h = activations.clone();
  x.reshape({kLstmSeq, kLstmBatch, kLstmEmbed});
  h.reshape({kLstmSeq, kLstmBatch, kLstmHidden});
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

  skiff::bench::TrainingBench w4 = skiff::bench::lstm_lm_training();
  skiff::Executor exe;
  Scope scope;
  exe.run(w4.startup, &scope);
  skiff::bench::set_params(&scope, w4.params);
  w4.feed_step(w4.main, &scope, 0);  // the same batch every step
  auto step = exe.prepare(w4.main, {w4.loss});

  std::vector<float> losses;
  for (int s = 0; s <= kLossSteps; ++s) {
    exe.run(*step, &scope);
    losses.push_back(skiff::fetch(scope, w4.loss).item<float>());
  }
  const double ms = median_ms(reps, [&] { exe.run(*step, &scope); });

  std::printf(
      "W4 LSTM language model training step (V %lld, embed/hidden %lld, %lld layers, "
      "seq %lld, batch %lld), %d reps, %d threads\n",
      static_cast<long long>(kLstmVocab), static_cast<long long>(kLstmHidden),
      static_cast<long long>(kLstmLayers), static_cast<long long>(kLstmSeq),
      static_cast<long long>(kLstmBatch), reps, threads);
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
