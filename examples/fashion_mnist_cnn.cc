// Trains a small convolutional network on Fashion-MNIST with a program built in C++,
// then reports test accuracy. The data comes from the Debian package dataset-fashion-mnist.
//
//   conv3x3(1->32, pad 1)-relu-maxpool2, conv3x3(32->64, pad 1)-relu-maxpool2, fc(3136->10)
//
//   build/bin/fashion_mnist_cnn [--epochs N] [--data DIR] [--save PREFIX] [--min-accuracy A]
//       [--optimizer adam|momentum|sgd] [--lr LR] [--schedule cosine|constant]
//       [--batch B] [--threads T]
//
// Defaults: 1 epoch, batch 64, Adam with lr 2e-3 annealed to 0 along a cosine over all
// steps, 2 threads (measured: test accuracy 0.88 after 1 epoch, 0.914 after 5).
//
// The trained inference program and its parameters are written to PREFIX.skmodel and
// PREFIX.skparams, ready for `skiff run` (input 'x' float32[-1, 1, 28, 28]).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

using Ints = std::vector<int64_t>;
constexpr int64_t kClasses = 10, kTestChunk = 1000;

// A parameter created by `startup` (uniform in ±bound), or only declared (inference).
std::string param(BlockBuilder& b, const std::string& name, const Shape& shape, double bound,
                  Program* startup) {
  if (!startup) return b.persistable(name, DType::kF32, shape);
  Initializer init = bound > 0 ? Initializer::uniform(-bound, bound) : Initializer::constant(0);
  return b.parameter(name, DType::kF32, shape, startup, init);
}

// Glorot uniform bound for fans counted with the receptive field.
double glorot(int64_t fan_in, int64_t fan_out) {
  return std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
}

// conv3x3(pad 1) + bias, relu, 2x2 max pool with stride 2.
std::string conv_block(BlockBuilder& b, const std::string& x, const std::string& name,
                       int64_t in_channels, int64_t out_channels, Program* startup) {
  std::string w = param(b, name + "_w", {out_channels, in_channels, 3, 3},
                        glorot(in_channels * 9, out_channels * 9), startup);
  std::string bias = param(b, name + "_b", {out_channels}, 0, startup);
  std::string conv = b.unique_name(name);
  b.op("conv2d", {{"Input", {x}}, {"Filter", {w}}, {"Bias", {bias}}}, {{"Output", {conv}}},
       {{"strides", Ints{1, 1}}, {"paddings", Ints{1, 1}}});
  std::string act = b.apply("relu", {{"X", {conv}}});
  return b.apply(
      "pool2d", {{"X", {act}}},
      {{"pooling_type", std::string("max")}, {"ksize", Ints{2, 2}}, {"strides", Ints{2, 2}}});
}

// logits [N, 10] of images x [N, 1, 28, 28]. With `startup` the parameters are created
// (and initialized there); without, they are only declared (inference).
std::string network(BlockBuilder& b, const std::string& x, Program* startup) {
  std::string h = conv_block(b, x, "conv1", 1, 32, startup);
  h = conv_block(b, h, "conv2", 32, 64, startup);
  std::string flat = b.apply("flatten", {{"X", {h}}}, {{"start_axis", int64_t{1}}});
  std::string w = param(b, "fc_w", {3136, kClasses}, glorot(3136, kClasses), startup);
  std::string bias = param(b, "fc_b", {kClasses}, 0, startup);
  std::string z = b.apply("matmul", {{"X", {flat}}, {"Y", {w}}});
  b.op("elementwise_add", {{"X", {z}}, {"Y", {bias}}}, {{"Out", {"logits"}}});
  return "logits";
}

// Images [N, 1, 28, 28] and labels [N] of one split ("train" or "t10k").
std::pair<Tensor, Tensor> load(const std::string& dir, const std::string& split) {
  Tensor x = data::read_idx_images(dir + "/" + split + "-images-idx3-ubyte.gz");
  x.reshape({x.dim(0), 1, 28, 28});
  return {x, data::read_idx_labels(dir + "/" + split + "-labels-idx1-ubyte.gz")};
}

// Fraction of `images` whose highest logit is their label, run in chunks of 1000.
double test_accuracy(const Executor& exe, PreparedBlock& predict, const Program& infer,
                     Scope* scope, const Tensor& images, const Tensor& labels) {
  const int64_t n = images.dim(0), pixels = images.numel() / n;
  int64_t correct = 0;
  for (int64_t begin = 0; begin < n; begin += kTestChunk) {
    const int64_t count = std::min(kTestChunk, n - begin);
    Tensor chunk = Tensor::empty({count, 1, 28, 28}, DType::kF32);
    std::memcpy(chunk.data<float>(), images.data<float>() + begin * pixels,
                sizeof(float) * count * pixels);
    feed(infer, scope, "x", chunk);
    exe.run(predict, scope);
    const Tensor logits = fetch(*scope, "logits");
    const float* p = logits.data<float>();
    for (int64_t r = 0; r < count; ++r) {
      const float* row = p + r * kClasses;
      correct += std::max_element(row, row + kClasses) - row == labels.data<int64_t>()[begin + r];
    }
  }
  return static_cast<double>(correct) / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = 1, threads = 2;
  int64_t batch_size = 64;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  std::string save = "fashion_mnist_cnn";
  std::string optimizer = "adam";
  std::string schedule = "cosine";
  double lr = -1;
  double min_accuracy = 0;  // exit 1 when the final test accuracy is below
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--epochs")) epochs = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--data")) dir = argv[a + 1];
    if (!std::strcmp(argv[a], "--save")) save = argv[a + 1];
    if (!std::strcmp(argv[a], "--min-accuracy")) min_accuracy = std::atof(argv[a + 1]);
    if (!std::strcmp(argv[a], "--optimizer")) optimizer = argv[a + 1];
    if (!std::strcmp(argv[a], "--lr")) lr = std::atof(argv[a + 1]);
    if (!std::strcmp(argv[a], "--threads")) threads = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--batch")) batch_size = std::atoll(argv[a + 1]);
    if (!std::strcmp(argv[a], "--schedule")) schedule = argv[a + 1];
  }
  omp_set_num_threads(threads);
  try {
    auto [train_x, train_y] = load(dir, "train");
    auto [test_x, test_y] = load(dir, "t10k");
    std::printf("Fashion-MNIST: %lld training, %lld test images\n",
                static_cast<long long>(train_x.dim(0)), static_cast<long long>(test_x.dim(0)));

    Program train, startup, infer;
    BlockBuilder tb(&train);
    tb.data("x", DType::kF32, {-1, 1, 28, 28});
    tb.data("label", DType::kI64, {-1, 1});
    std::string logits = network(tb, "x", &startup);
    std::string softmax = tb.unique_name("softmax"), xent = tb.unique_name("xent");
    tb.op("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {"label"}}},
          {{"Softmax", {softmax}}, {"Loss", {xent}}});
    std::string loss = tb.apply("reduce_mean", {{"X", {xent}}});
    OptimizerConfig config;
    config.type = optimizer;
    config.learning_rate = lr > 0 ? lr : optimizer == "adam" ? 2e-3 : 0.05;  // measured best
    config.momentum = 0.9;
    if (schedule == "cosine") {  // from lr down to 0 over all steps of training
      config.lr_schedule.type = "cosine_annealing";
      config.lr_schedule.t_max = epochs * (train_x.dim(0) / batch_size);
    } else if (schedule != "constant") {
      std::fprintf(stderr, "fashion_mnist_cnn: --schedule is 'cosine' or 'constant'\n");
      return 2;
    }
    append_optimizer(train, startup, append_backward(train, loss), config);

    BlockBuilder ib(&infer);
    ib.data("x", DType::kF32, {-1, 1, 28, 28});
    network(ib, "x", nullptr);

    Executor exe;
    Scope scope;
    exe.run(startup, &scope);
    auto step = exe.prepare(train, {loss});
    auto predict = exe.prepare(infer, {"logits"});

    data::BatchReader reader(train_x, train_y, batch_size, /*seed=*/1);
    double acc = 0;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
      auto start = std::chrono::steady_clock::now();
      reader.start_epoch();
      double loss_sum = 0;
      int64_t steps = 0;
      while (auto batch = reader.next()) {
        batch->second.reshape({batch_size, 1});
        feed(train, &scope, "x", batch->first);
        feed(train, &scope, "label", batch->second);
        exe.run(*step, &scope);
        loss_sum += fetch(scope, loss).item<float>();
        if (++steps % 200 == 0) {
          std::printf("  epoch %d  step %4lld/%lld  loss %.4f\n", epoch,
                      static_cast<long long>(steps),
                      static_cast<long long>(reader.batches_per_epoch()), loss_sum / steps);
          std::fflush(stdout);
        }
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      acc = test_accuracy(exe, *predict, infer, &scope, test_x, test_y);
      std::printf("epoch %d: train loss %.4f, test accuracy %.4f, %.1f s (%.0f images/s)\n", epoch,
                  loss_sum / steps, acc, secs, steps * batch_size / secs);
    }
    save_program(infer, save + ".skmodel");
    save_persistables(save + ".skparams", infer, scope);
    std::printf(
        "saved %s.skmodel and %s.skparams (input 'x' float32[-1, 1, 28, 28], output "
        "'logits')\n",
        save.c_str(), save.c_str());
    if (acc < min_accuracy) {
      std::fprintf(stderr, "fashion_mnist_cnn: test accuracy %.4f is below %.4f\n", acc,
                   min_accuracy);
      return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "fashion_mnist_cnn: %s\n", e.what());
    return 1;
  }
  return 0;
}
