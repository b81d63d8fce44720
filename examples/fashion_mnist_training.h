// What the Fashion-MNIST examples share: their common flags, reading the IDX files of the
// Debian package dataset-fashion-mnist, the softmax cross-entropy loss, the training loop
// with its progress lines (and, with --logdir, a training log for skiff board), test
// accuracy, and saving the trained inference program.
//
//   const ExampleFlags flags = read_flags(argc, argv, "fashion_mnist_mlp", /*epochs=*/2);
//   const FashionMnist data = load_fashion_mnist(flags.dir, {784});
//   ExamplePrograms p;
//   BlockBuilder tb(&p.train);   // data "x" and "label", then the network
//   p.loss = append_softmax_loss(tb, network(tb, "x", &p.startup), "label");
//   ... append the optimizer; build p.infer and set p.logits ...
//   return run_example(flags, p, data, /*batch=*/64, "float32[-1, 784]");
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "skiff/api/builder.h"
#include "skiff/board/log_writer.h"
#include "skiff/data/batch_reader.h"
#include "skiff/data/idx.h"
#include "skiff/ir/serialize.h"
#include "skiff/kernels/cpu/random.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/persistables.h"

namespace skiff::examples {

constexpr int64_t kClasses = 10;

// The flags every Fashion-MNIST example takes.
struct ExampleFlags {
  std::string name;  // the example, for messages and the default --save prefix
  int epochs = 1;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  std::string save;         // PREFIX of PREFIX.skmodel and PREFIX.skparams
  double min_accuracy = 0;  // exit 1 when the final test accuracy is below
  uint64_t seed = 1;        // of the parameter initialisation (and dropout, if any)
  std::string logdir;       // when set, the training log for skiff board goes there
};

// Reads "--flag value" pairs: the common ones into the result, every other one through
// `other(flag, value)`.
inline ExampleFlags read_flags(
    int argc, char** argv, const std::string& name, int default_epochs,
    const std::function<void(const char*, const char*)>& other = nullptr) {
  ExampleFlags flags;
  flags.name = name;
  flags.epochs = default_epochs;
  flags.save = name;
  for (int a = 1; a + 1 < argc; a += 2) {
    const char* value = argv[a + 1];
    if (!std::strcmp(argv[a], "--epochs")) {
      flags.epochs = std::atoi(value);
    } else if (!std::strcmp(argv[a], "--data")) {
      flags.dir = value;
    } else if (!std::strcmp(argv[a], "--save")) {
      flags.save = value;
    } else if (!std::strcmp(argv[a], "--min-accuracy")) {
      flags.min_accuracy = std::atof(value);
    } else if (!std::strcmp(argv[a], "--seed")) {
      flags.seed = std::strtoull(value, nullptr, 10);
    } else if (!std::strcmp(argv[a], "--logdir")) {
      flags.logdir = value;
    } else if (other) {
      other(argv[a], value);
    }
  }
  return flags;
}

// Images float32 [N, image dims...] and labels int64 [N].
struct LabeledImages {
  Tensor images, labels;
};

// One split ("train" or "t10k") of the IDX files in `dir`, each image shaped `image`.
inline LabeledImages load_split(const std::string& dir, const std::string& split,
                                const Shape& image) {
  Tensor x = data::read_idx_images(dir + "/" + split + "-images-idx3-ubyte.gz");
  Shape shape{x.dim(0)};
  for (int d = 0; d < image.rank(); ++d) shape.push_back(image[d]);
  x.reshape(shape);
  return {x, data::read_idx_labels(dir + "/" + split + "-labels-idx1-ubyte.gz")};
}

// The training ("train") and test ("t10k") splits.
struct FashionMnist {
  LabeledImages train, test;
};

// Both splits of the IDX files in `dir`, each image shaped `image`; prints their sizes.
inline FashionMnist load_fashion_mnist(const std::string& dir, const Shape& image) {
  FashionMnist data{load_split(dir, "train", image), load_split(dir, "t10k", image)};
  std::printf("Fashion-MNIST: %lld training, %lld test images\n",
              static_cast<long long>(data.train.images.dim(0)),
              static_cast<long long>(data.test.images.dim(0)));
  return data;
}

// mean(softmax_with_cross_entropy(logits, label)) appended to `b`; returns the loss.
inline std::string append_softmax_loss(BlockBuilder& b, const std::string& logits,
                                       const std::string& label) {
  std::string softmax = b.unique_name("softmax"), xent = b.unique_name("xent");
  b.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {label}}},
       {{"Softmax", {softmax}}, {"Loss", {xent}}});
  return b.apply("reduce_mean", {{"X", {xent}}});
}

// The programs of an example: `train` feeds "x" and "label" and computes the mean loss
// `loss` (append_optimizer applied; `startup` creates the parameters); `infer` feeds "x"
// and computes `logits`.
struct ExamplePrograms {
  Program train, startup, infer;
  std::string loss, logits;
};

// Fraction of `test` images whose highest logit is their label: `predict` (prepared from
// `infer`, fetching `logits`) run on chunks of 1000 images.
inline double test_accuracy(const Executor& exe, PreparedBlock& predict, const Program& infer,
                            const std::string& logits, Scope* scope, const LabeledImages& test) {
  constexpr int64_t kChunk = 1000;
  const int64_t n = test.images.dim(0), pixels = test.images.numel() / n;
  int64_t correct = 0;
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    Shape shape = test.images.shape();
    shape[0] = count;
    Tensor chunk = Tensor::empty(shape, DType::kF32);
    std::memcpy(chunk.data<float>(), test.images.data<float>() + begin * pixels,
                sizeof(float) * count * pixels);
    feed(infer, scope, "x", chunk);
    exe.run(predict, scope);
    const Tensor out = fetch(*scope, logits);
    const float* p = out.data<float>();
    for (int64_t r = 0; r < count; ++r) {
      const float* row = p + r * kClasses;
      correct +=
          std::max_element(row, row + kClasses) - row == test.labels.data<int64_t>()[begin + r];
    }
  }
  return static_cast<double>(correct) / static_cast<double>(n);
}

// Runs p.startup, then trains `epochs` epochs over `train` in shuffled batches of `batch`
// (seed 1), printing the mean loss every 200 steps and, after each epoch, the train
// loss, test accuracy and throughput; with `log`, also each step's loss ("train/loss")
// and each epoch's accuracy ("test/accuracy"). Returns the test accuracy after the last
// epoch.
inline double train_and_test(const ExamplePrograms& p, Scope* scope, const LabeledImages& train,
                             const LabeledImages& test, int64_t batch, int epochs,
                             board::LogWriter* log = nullptr) {
  Executor exe;
  exe.run(p.startup, scope);
  auto step = exe.prepare(p.train, {p.loss});
  auto predict = exe.prepare(p.infer, {p.logits});
  data::BatchReader reader(train.images, train.labels, batch, /*seed=*/1);
  double accuracy = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    auto start = std::chrono::steady_clock::now();
    reader.start_epoch();
    double loss_sum = 0;
    int64_t steps = 0;
    while (auto next = reader.next()) {
      next->second.reshape({batch, 1});
      feed(p.train, scope, "x", next->first);
      feed(p.train, scope, "label", next->second);
      exe.run(*step, scope);
      const float loss = fetch(*scope, p.loss).item<float>();
      loss_sum += loss;
      if (log)
        log->add_scalar("train/loss", loss, (epoch - 1) * reader.batches_per_epoch() + steps);
      if (++steps % 200 == 0) {
        std::printf("  epoch %d  step %4lld/%lld  loss %.4f\n", epoch,
                    static_cast<long long>(steps),
                    static_cast<long long>(reader.batches_per_epoch()), loss_sum / steps);
        std::fflush(stdout);
      }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    accuracy = test_accuracy(exe, *predict, p.infer, p.logits, scope, test);
    if (log) log->add_scalar("test/accuracy", accuracy, epoch * reader.batches_per_epoch());
    std::printf("epoch %d: train loss %.4f, test accuracy %.4f, %.1f s (%.0f images/s)\n", epoch,
                loss_sum / steps, accuracy, secs, steps * batch / secs);
  }
  return accuracy;
}

// Trains and tests (train_and_test), then writes flags.save + ".skmodel" and ".skparams"
// for p.infer, whose input 'x' is of type `input`. Returns the exit code: 1 when the
// final test accuracy is below flags.min_accuracy.
inline int run_example(const ExampleFlags& flags, const ExamplePrograms& p,
                       const FashionMnist& data, int64_t batch, const char* input) {
  Scope scope;
  kernels::set_global_seed(flags.seed);  // the same initial parameters every run
  std::unique_ptr<board::LogWriter> log;
  if (!flags.logdir.empty()) {
    log = std::make_unique<board::LogWriter>(flags.logdir);
    std::filesystem::create_directories(flags.logdir + "/programs");
    save_program(p.train, flags.logdir + "/programs/" + flags.name + "_train.skmodel");
  }
  const double accuracy =
      train_and_test(p, &scope, data.train, data.test, batch, flags.epochs, log.get());
  if (log) {
    log->close();
    std::printf("training log in %s (skiff board --logdir %s)\n", flags.logdir.c_str(),
                flags.logdir.c_str());
  }
  save_program(p.infer, flags.save + ".skmodel");
  save_persistables(flags.save + ".skparams", p.infer, scope);
  std::printf("saved %s.skmodel and %s.skparams (input 'x' %s, output '%s')\n", flags.save.c_str(),
              flags.save.c_str(), input, p.logits.c_str());
  if (accuracy < flags.min_accuracy) {
    std::fprintf(stderr, "%s: test accuracy %.4f is below %.4f\n", flags.name.c_str(), accuracy,
                 flags.min_accuracy);
    return 1;
  }
  return 0;
}

}  // namespace skiff::examples
