// A recurrent network written as a skiff program in C++: a `while` loop runs an RNN
// cell over a sequence held in a tensor array, an if/else chooses the readout, and
// append_backward + append_optimizer turn it into a training program. The task is
// made up on the spot: predict the running mean of the first input feature.
//
//   build/bin/rnn_while        # prints a falling loss
#include <cstdio>
#include <random>

#include "skiff/api/builder.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"

using namespace skiff;

namespace {

constexpr int kSteps = 6, kBatch = 16, kIn = 3, kHidden = 8;

std::string constant(BlockBuilder& b, double v, const char* dtype,
                     std::vector<int64_t> shape = {1}) {
  return b.apply("fill_constant", {},
                 {{"shape", shape}, {"value", v}, {"dtype", std::string(dtype)}});
}

}  // namespace

int main() {
  Program main, startup;
  BlockBuilder b(&main);
  std::string w_in =
      b.parameter("w_in", DType::kF32, {kIn, kHidden}, &startup, Initializer::xavier(/*seed=*/1));
  std::string w_h = b.parameter("w_h", DType::kF32, {kHidden, kHidden}, &startup,
                                Initializer::xavier(/*seed=*/2));
  std::string bias =
      b.parameter("bias", DType::kF32, {kHidden}, &startup, Initializer::constant(0));
  std::string w_out =
      b.parameter("w_out", DType::kF32, {kHidden, 1}, &startup, Initializer::xavier(/*seed=*/3));
  b.data("target", DType::kF32, {kBatch, 1});

  // The sequence arrives as kSteps fed tensors gathered into a tensor array.
  std::string xs = b.unique_name("xs");
  for (int t = 0; t < kSteps; ++t) {
    std::string xt = b.data("x" + std::to_string(t), DType::kF32, {kBatch, kIn});
    b.op("write_to_array", {{"X", {xt}}, {"I", {constant(b, t, "int64")}}}, {{"Out", {xs}}});
  }

  // h = tanh(x_t @ w_in + h @ w_h + bias) for t < kSteps
  std::string h = constant(b, 0.0, "float32", {kBatch, kHidden});
  std::string i = constant(b, 0, "int64"), n = constant(b, kSteps, "int64");
  std::string cond = b.apply("less_than", {{"X", {i}}, {"Y", {n}}});
  b.while_loop(cond, [&](BlockBuilder& body) {
    std::string xt = body.apply("read_from_array", {{"X", {xs}}, {"I", {i}}});
    std::string in = body.apply("matmul", {{"X", {xt}}, {"Y", {w_in}}});
    std::string rec = body.apply("matmul", {{"X", {h}}, {"Y", {w_h}}});
    std::string pre = body.apply("elementwise_add", {{"X", {in}}, {"Y", {rec}}});
    pre = body.apply("elementwise_add", {{"X", {pre}}, {"Y", {bias}}});
    body.assign(body.apply("tanh", {{"X", {pre}}}), h);
    body.op("increment", {{"X", {i}}}, {{"Out", {i}}}, {{"step", 1.0}});
    body.op("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}});
  });

  // Readout: a linear head while the hidden state is mostly positive, else its half.
  std::string mean_h = b.apply("reduce_mean", {{"X", {h}}});
  std::string zero = constant(b, 0.0, "float32");
  std::string positive = b.apply("greater_than", {{"X", {mean_h}}, {"Y", {zero}}});
  std::string pred = b.if_else(
      positive,
      [&](BlockBuilder& t) {
        return std::vector<std::string>{t.apply("matmul", {{"X", {h}}, {"Y", {w_out}}})};
      },
      [&](BlockBuilder& f) {
        std::string y = f.apply("matmul", {{"X", {h}}, {"Y", {w_out}}});
        return std::vector<std::string>{f.apply("scale", {{"X", {y}}}, {{"scale", 0.5}})};
      })[0];
  std::string err = b.apply("elementwise_sub", {{"X", {pred}}, {"Y", {"target"}}});
  std::string loss =
      b.apply("reduce_mean", {{"X", {b.apply("elementwise_mul", {{"X", {err}}, {"Y", {err}}})}}});

  auto param_grads = append_backward(main, loss);
  OptimizerConfig adam;
  adam.type = "adam";
  adam.learning_rate = 0.005;
  append_optimizer(main, startup, param_grads, adam);

  Executor exe;
  Scope scope;
  exe.run(startup, &scope);
  auto step = exe.prepare(main, {loss});

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  double window = 0;  // loss summed over the last 50 steps
  double first = 0, last = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Tensor target = Tensor::zeros({kBatch, 1}, DType::kF32);
    for (int t = 0; t < kSteps; ++t) {
      Tensor xt = Tensor::empty({kBatch, kIn}, DType::kF32);
      for (int64_t k = 0; k < xt.numel(); ++k) xt.data<float>()[k] = uni(rng);
      for (int r = 0; r < kBatch; ++r)
        target.data<float>()[r] += xt.data<float>()[r * kIn] / kSteps;
      feed(main, &scope, "x" + std::to_string(t), xt);
    }
    feed(main, &scope, "target", target);
    exe.run(*step, &scope);
    window += fetch(scope, loss).item<float>();
    if (iter % 50 == 49) {
      std::printf("steps %3d-%3d  mean loss %.5f\n", iter - 49, iter, window / 50);
      if (iter == 49) first = window;
      last = window;
      window = 0;
    }
  }
  // The target is a mean of kSteps values uniform in [-1, 1]: mean 0, variance
  // (1/3) / kSteps. Predicting 0 scores that variance; the trained network must explain
  // at least three quarters of it over its last 50 steps.
  const double target_variance = 1.0 / 3.0 / kSteps;
  std::printf("first 50 steps %.5f, last 50 steps %.5f, target variance %.5f\n", first / 50,
              last / 50, target_variance);
  if (!(last / 50 < 0.25 * target_variance)) {
    std::fprintf(stderr,
                 "rnn_while: the loss did not fall below a quarter of the target's variance "
                 "(%.5f -> %.5f, variance %.5f)\n",
                 first / 50, last / 50, target_variance);
    return 1;
  }
  return 0;
}
