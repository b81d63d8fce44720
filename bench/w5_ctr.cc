// W5 of the reference workloads (bench/README.md): one training step of a sparse CTR
// model. Each example has 26 ids, each looked up in a 1M x 16 embedding table whose
// gradient is sparse (only the looked-up rows), concatenated to 416 features, then
// fc(416->256)-relu-fc(256->1) and BCE with logits; batch 512, SGD (lr 0.01), fp32,
// 2 threads. The ids of step s are those bench/peers.py computes (8 batches in turn).
//
//   w5_ctr [reps=7] [--memory] [--threads 2]
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
    bench::TrainingBench w5;
    w5.title = "W5 sparse CTR, 26 ids per example, 1M x 16 table, batch 512, SGD: training step";
    BlockBuilder b(&w5.main);
    b.data("ids", DType::kI64, {-1, bench::kCtrFields});
    b.data("click", DType::kF32, {-1, 1});
    std::string logit = bench::ctr_network(b, "ids", &w5.startup);
    std::string xent =
        b.apply("sigmoid_cross_entropy_with_logits", {{"X", {logit}}, {"Label", {"click"}}});
    w5.loss = b.apply("reduce_mean", {{"X", {xent}}});
    OptimizerConfig sgd;
    sgd.type = "sgd";
    sgd.learning_rate = 0.01;
    append_optimizer(w5.main, w5.startup, append_backward(w5.main, w5.loss), sgd);
    w5.params = bench::ctr_params();

    constexpr int kBatches = 8;
    std::vector<Tensor> ids, clicks;
    for (int s = 0; s < kBatches; ++s) {
      ids.push_back(bench::ctr_ids(s));
      clicks.push_back(bench::ctr_labels(s));
    }
    w5.feed_step = [&](const Program& main, Scope* scope, int64_t step) {
      feed(main, scope, "ids", ids[step % kBatches]);
      feed(main, scope, "click", clicks[step % kBatches]);
    };
    w5.steps_per_rep = 20;
    return bench::run_training_bench(w5, options, rss_before);
  } catch (const Error& e) {
    std::fprintf(stderr, "w5_ctr: %s\n", e.what());
    return 1;
  }
}
