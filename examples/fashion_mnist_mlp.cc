// Trains a multi-layer perceptron on Fashion-MNIST with a program built in C++, then
// reports test accuracy. The data comes from the Debian package dataset-fashion-mnist.
//
//   build/bin/fashion_mnist_mlp [--epochs N] [--data DIR] [--save PREFIX] [--min-accuracy A]
//       [--logdir DIR]   (a training log for skiff board)
//
// The trained inference program and its parameters are written to PREFIX.skmodel and
// PREFIX.skparams, ready for `skiff run`.
#include <string>

#include "examples/fashion_mnist_training.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"

using namespace skiff;
using namespace skiff::examples;

namespace {

constexpr int64_t kBatch = 64, kPixels = 784, kHidden = 512;

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

}  // namespace

int main(int argc, char** argv) {
  const ExampleFlags flags = read_flags(argc, argv, "fashion_mnist_mlp", /*default_epochs=*/2);
  try {
    const FashionMnist data = load_fashion_mnist(flags.dir, {kPixels});

    ExamplePrograms p;
    BlockBuilder tb(&p.train);
    tb.data("x", DType::kF32, {-1, kPixels});
    tb.data("label", DType::kI64, {-1, 1});
    p.loss = append_softmax_loss(tb, network(tb, "x", &p.startup), "label");
    OptimizerConfig adam;
    adam.type = "adam";
    adam.learning_rate = 1e-3;
    append_optimizer(p.train, p.startup, append_backward(p.train, p.loss), adam);

    BlockBuilder ib(&p.infer);
    ib.data("x", DType::kF32, {-1, kPixels});
    p.logits = network(ib, "x", nullptr);
    return run_example(flags, p, data, kBatch, "float32[-1, 784]");
  } catch (const Error& e) {
    std::fprintf(stderr, "fashion_mnist_mlp: %s\n", e.what());
    return 1;
  }
}
