// W5 of the reference workloads (bench/README.md): one training step of a sparse CTR
// model. Each example has 26 ids, each looked up in a 1M x 16 embedding table whose
// gradient is sparse (only the looked-up rows), concatenated to 416 features, then
// fc(416->256)-relu-fc(256->1) and BCE with logits; batch 512, SGD (lr 0.01), fp32,
// 2 threads. The ids of step s are those bench/peers.py computes (8 batches in turn).
//
//   w5_ctr [reps=7] [--memory] [--threads 2]
#include <omp.h>

#include <cstdio>

#include "bench/workloads.h"
#include "skiff/core/error.h"

using namespace skiff;

int main(int argc, char** argv) {
  const bench::BenchOptions options = bench::parse_options(argc, argv);
  omp_set_num_threads(options.threads);
  const double rss_before = bench::current_rss_mb();
  try {
    bench::TrainingBench w5 = bench::ctr_training();
    return bench::run_training_bench(w5, options, rss_before);
  } catch (const Error& e) {
    std::fprintf(stderr, "w5_ctr: %s\n", e.what());
    return 1;
  }
}
