// W2 of the reference workloads (bench/README.md): one training step of an MLP
// 784-512-512-10 on a batch of 64, softmax cross-entropy, Adam (lr 1e-3), fp32, 2 threads,
// as a skiff program run by the interpreter. Starts from the fixed parameter values and
// batch bench/peers.py uses, prints the first losses ("LOSS") and the median ms per step
// ("RESULT") for bench/compare.py.
//
//   w2_mlp [reps=7] [--memory] [--threads 2]
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
    bench::TrainingBench w2 = bench::mlp_training();
    return bench::run_training_bench(w2, options, rss_before);
  } catch (const Error& e) {
    std::fprintf(stderr, "w2_mlp: %s\n", e.what());
    return 1;
  }
}
