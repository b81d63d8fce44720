// Trains a multi-layer perceptron on Fashion-MNIST with a program built in C++, then
// reports test accuracy. The data comes from the Debian package dataset-fashion-mnist.
//
//   build/bin/fashion_mnist_mlp [--epochs N] [--data DIR] [--save PREFIX] [--min-accuracy A]
//
// The trained inference program and its parameters are written to PREFIX.skmodel and
// PREFIX.skparams, ready for `skiff run`.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "skiff/autodiff/optimizer.h"
#include "skiff/data/batch_reader.h"
#include "skiff/data/idx.h"
#include "skiff/ir/serialize.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/params_file.h"

using namespace skiff;

namespace {

constexpr int64_t kBatch = 64, kPixels = 784, kHidden = 512, kClasses = 10;

// logits = relu(relu(x W1 + b1) W2 + b2) W3 + b3. With `startup` the parameters are
// created (and initialized there); without, they are only declared (inference).
std::string network(BlockBuilder& b, const std::string& x, Program* startup) {
  const int64_t widths[] = {kPixels, kHidden, kHidden, kClasses};
  std::string h = x;
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t in = widths[layer], out = widths[layer + 1];
    std::string w = "w" + std::to_string(layer), bias = "b" + std::to_string(layer);
    if (startup) {
      b.parameter(w, DType::kF32, {in, out}, startup);
      b.parameter(bias, DType::kF32, {out}, startup, Initializer::constant(0));
    } else {
      b.persistable(w, DType::kF32, {in, out});
      b.persistable(bias, DType::kF32, {out});
    }
    std::string z = b.apply("matmul", {{"X", {h}}, {"Y", {w}}});
    const bool last = layer == 2;
    std::string sum = last ? "logits" : b.unique_name("fc");
    b.op("elementwise_add", {{"X", {z}}, {"Y", {bias}}}, {{"Out", {sum}}});
    h = last ? sum : b.apply("relu", {{"X", {sum}}});
  }
  return h;
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  const float* p = logits.data<float>();
  const int64_t* y = labels.data<int64_t>();
  int64_t correct = 0;
  for (int64_t r = 0; r < logits.dim(0); ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < kClasses; ++c)
      if (p[r * kClasses + c] > p[r * kClasses + best]) best = c;
    correct += best == y[r];
  }
  return static_cast<double>(correct) / static_cast<double>(logits.dim(0));
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 2;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  std::string save = "fashion_mnist_mlp";
  double min_accuracy = 0;  // exit 1 when the final test accuracy is below
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--epochs")) epochs = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--data")) dir = argv[a + 1];
    if (!std::strcmp(argv[a], "--save")) save = argv[a + 1];
    if (!std::strcmp(argv[a], "--min-accuracy")) min_accuracy = std::atof(argv[a + 1]);
  }
  try {
    auto load = [&](const char* images, const char* labels) {
      Tensor x = data::read_idx_images(dir + "/" + images);
      x.reshape({x.dim(0), kPixels});
      return std::make_pair(x, data::read_idx_labels(dir + "/" + labels));
    };
    auto [train_x, train_y] = load("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz");
    auto [test_x, test_y] = load("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz");
    std::printf("Fashion-MNIST: %lld training, %lld test images\n",
                static_cast<long long>(train_x.dim(0)), static_cast<long long>(test_x.dim(0)));

    Program train, startup, infer;
    BlockBuilder tb(&train);
    tb.data("x", DType::kF32, {-1, kPixels});
    tb.data("label", DType::kI64, {-1, 1});
    std::string logits = network(tb, "x", &startup);
    std::string softmax = tb.unique_name("softmax"), xent = tb.unique_name("xent");
    tb.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"label"}}},
          {{"Softmax", {softmax}}, {"Loss", {xent}}});
    std::string loss = tb.apply("reduce_mean", {{"X", {xent}}});
    OptimizerConfig adam;
    adam.type = "adam";
    adam.learning_rate = 1e-3;
    append_optimizer(train, startup, append_backward(train, loss), adam);

    BlockBuilder ib(&infer);
    ib.data("x", DType::kF32, {-1, kPixels});
    std::string test_logits = network(ib, "x", nullptr);

    Executor exe;
    Scope scope;
    exe.run(startup, &scope);
    auto step = exe.prepare(train, {loss});
    auto predict = exe.prepare(infer, {test_logits});

    data::BatchReader reader(train_x, train_y, kBatch, /*seed=*/1);
    double acc = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      auto start = std::chrono::steady_clock::now();
      reader.start_epoch();
      double loss_sum = 0;
      int64_t steps = 0;
      while (auto batch = reader.next()) {
        batch->second.reshape({kBatch, 1});
        feed(train, &scope, "x", batch->first);
        feed(train, &scope, "label", batch->second);
        exe.run(*step, &scope);
        loss_sum += fetch(scope, loss).item<float>();
        if (++steps % 200 == 0)
          std::printf("  epoch %d  step %4lld/%lld  loss %.4f\n", epoch,
                      static_cast<long long>(steps),
                      static_cast<long long>(reader.batches_per_epoch()), loss_sum / steps);
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      feed(infer, &scope, "x", test_x);
      exe.run(*predict, &scope);
      acc = accuracy(fetch(scope, test_logits), test_y);
      std::printf("epoch %d: train loss %.4f, test accuracy %.4f, %.1f s (%.0f images/s)\n", epoch,
                  loss_sum / steps, acc, secs, steps * kBatch / secs);
    }
    save_program(infer, save + ".skmodel");
    save_persistables(save + ".skparams", infer, scope);
    std::printf("saved %s.skmodel and %s.skparams (input 'x' float32[-1, 784], output '%s')\n",
                save.c_str(), save.c_str(), test_logits.c_str());
    if (acc < min_accuracy) {
      std::fprintf(stderr, "fashion_mnist_mlp: test accuracy %.4f is below %.4f\n", acc,
                   min_accuracy);
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "fashion_mnist_mlp: %s\n", e.what());
    return 1;
  }
  return 0;
}
