// W8 of the reference workloads (bench/README.md): Fashion-MNIST end to end with W3's
// network (bench/workloads.h): read the training IDX files, train one epoch (batch 64,
// SGD with momentum 0.9, lr 0.01, Glorot-uniform start), then measure test accuracy.
// The time of a repetition covers reading and decoding the training files, batching
// (skiff/data/batch_reader.h) and the epoch; the test pass is not timed. Each repetition
// starts from fresh parameters. Prints "RESULT skiff <ms>" (median epoch) and
// "ACCURACY skiff <median accuracy>" for bench/compare.py.
//
//   w8_fashion [reps=5] [--data DIR] [--threads 2]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/workloads.h"
#include "examples/fashion_mnist_training.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"

using namespace skiff;

namespace {

constexpr int64_t kBatch = 64, kWarmupSteps = 20;

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, threads = 2;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--data") && a + 1 < argc)
      dir = argv[++a];
    else if (!std::strcmp(argv[a], "--threads") && a + 1 < argc)
      threads = std::max(1, std::atoi(argv[++a]));
    else
      reps = std::max(5, std::atoi(argv[a]));
  }
  omp_set_num_threads(threads);
  try {
    Program train, startup, infer;
    BlockBuilder tb(&train);
    tb.data("x", DType::kF32, {-1, 1, 28, 28});
    tb.data("label", DType::kI64, {-1, 1});
    std::string loss =
        bench::append_softmax_loss(tb, bench::cnn_network(tb, "x", &startup), "label");
    OptimizerConfig momentum;
    momentum.type = "momentum";
    momentum.learning_rate = 0.01;
    momentum.momentum = 0.9;
    append_optimizer(train, startup, append_backward(train, loss), momentum);
    BlockBuilder ib(&infer);
    ib.data("x", DType::kF32, {-1, 1, 28, 28});
    std::string logits = bench::cnn_network(ib, "x", nullptr);

    Executor exe;
    Scope scope;
    auto step = exe.prepare(train, {loss});
    auto predict = exe.prepare(infer, {logits});
    const examples::LabeledImages test = examples::load_split(dir, "t10k", {1, 28, 28});

    auto train_epoch = [&](int64_t max_steps) {
      const examples::LabeledImages train_set = examples::load_split(dir, "train", {1, 28, 28});
      exe.run(startup, &scope);
      data::BatchReader reader(train_set.images, train_set.labels, kBatch, /*seed=*/1);
      reader.start_epoch();
      int64_t steps = 0;
      while (auto batch = reader.next()) {
        batch->second.reshape({kBatch, 1});
        feed(train, &scope, "x", batch->first);
        feed(train, &scope, "label", batch->second);
        exe.run(*step, &scope);
        if (++steps == max_steps) break;
      }
    };
    train_epoch(kWarmupSteps);
    std::vector<double> ms, accuracy;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      train_epoch(-1);
      auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      accuracy.push_back(examples::test_accuracy(exe, *predict, infer, logits, &scope, test));
      std::printf("  epoch %d: %.1f s, test accuracy %.4f\n", r + 1, ms.back() / 1e3,
                  accuracy.back());
      std::fflush(stdout);
    }
    std::sort(ms.begin(), ms.end());
    std::sort(accuracy.begin(), accuracy.end());
    std::printf("W8 Fashion-MNIST, W3's network, 1 epoch (median of %d)\n", reps);
    std::printf("RESULT skiff %.4f\n", ms[ms.size() / 2]);
    std::printf("ACCURACY skiff %.4f\n", accuracy[accuracy.size() / 2]);
  } catch (const Error& e) {
    std::fprintf(stderr, "w8_fashion: %s\n", e.what());
    return 1;
  }
  return 0;
}
