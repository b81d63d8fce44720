// W2 of the reference workloads (bench/README.md): one training step of an MLP
// 784-512-512-10 on a batch of 64, softmax cross-entropy, Adam (lr 1e-3), fp32, 2 threads,
// as a skiff program run by the interpreter. Starts from the fixed parameter values and
// batch bench/peers.py uses, prints the first losses ("LOSS") and the median ms per step
// ("RESULT") for bench/compare.py.
//
//   w2_mlp [reps=7] [--memory] [--threads 2]
#include <omp.h>

#include "bench/workloads.h"
#include "skiff/autodiff/backward.h"
#include "skiff/autodiff/optimizer.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  const double rss_before = bench::current_rss_mb();
  try {
    bench::TrainingBench w2;
    w2.title = "W2 MLP 784-512-512-10, batch 64, Adam: training step";
    BlockBuilder b(&w2.main);
    b.data("x", DType::kF32, {-1, 784});
    b.data("label", DType::kI64, {-1, 1});
    std::string logits = bench::mlp_network(b, "x", &w2.startup);
    w2.loss = bench::append_softmax_loss(b, logits, "label");
    OptimizerConfig adam;
    adam.type = "adam";
    adam.learning_rate = 1e-3;
    append_optimizer(w2.main, w2.startup, append_backward(w2.main, w2.loss), adam);
    w2.params = bench::mlp_params();

    const Tensor x = bench::image_batch({64, 784}), label = bench::image_labels(64);
    w2.feed_step = [&](const Program& main, Scope* scope, int64_t) {
      feed(main, scope, "x", x);
      feed(main, scope, "label", label);
    };
    w2.steps_per_rep = 20;
    return bench::run_training_bench(w2, options, rss_before);
  } catch (const Error& e) {
    std::fprintf(stderr, "w2_mlp: %s\n", e.what());
    return 1;
  }
}
