// W3 of the reference workloads (bench/README.md): one training step of a small CNN,
// conv3x3(1->32, pad 1)-relu-maxpool2, conv3x3(32->64, pad 1)-relu-maxpool2, fc(3136->10),
// on a batch of 64 images 1x28x28, softmax cross-entropy, SGD with momentum 0.9 (lr 0.01),
// fp32, 2 threads. Starts from the fixed values bench/peers.py uses; prints the first
// losses ("LOSS") and the median ms per step ("RESULT"), or with --memory the peak
// resident set size after 50 steps ("PEAK_RSS_MB").
//
//   w3_cnn [reps=7] [--memory] [--threads 2]
#include <omp.h>

#include "bench/workloads.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  const double rss_before = bench::current_rss_mb();
  try {
    bench::TrainingBench w3;
    w3.title = "W3 CNN, batch 64, SGD momentum 0.9: training step";
    BlockBuilder b(&w3.main);
    b.data("x", DType::kF32, {-1, 1, 28, 28});
    b.data("label", DType::kI64, {-1, 1});
    std::string logits = bench::cnn_network(b, "x", &w3.startup);
    w3.loss = bench::append_softmax_loss(b, logits, "label");
    OptimizerConfig momentum;
    momentum.type = "momentum";
    momentum.learning_rate = 0.01;
    momentum.momentum = 0.9;
    append_optimizer(w3.main, w3.startup, append_backward(w3.main, w3.loss), momentum);
    w3.params = bench::cnn_params();

    const Tensor x = bench::image_batch({64, 1, 28, 28}), label = bench::image_labels(64);
    w3.feed_step = [&](const Program& main, Scope* scope, int64_t) {
      feed(main, scope, "x", x);
      feed(main, scope, "label", label);
    };
    w3.steps_per_rep = 5;
    return bench::run_training_bench(w3, options, rss_before);
  } catch (const Error& e) {
    std::fprintf(stderr, "w3_cnn: %s\n", e.what());
    return 1;
  }
}
