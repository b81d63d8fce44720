// A tiny linear regression that the optimizer tests train with append_optimizer:
// pred = w1*x1 + w2*x2 + b over kRegressionPoints points, x1 evenly spaced in [-1, 1]
// and t = 2 x1 - 3 x2 + 0.5 exactly (so the loss can reach zero).
//
//   RegressionTrainer tr({"adam", 0.1}, regression_data([](int i) { return std::sin(1.7 * i); }),
//                        RegressionLoss::kSumOfSquares, /*init=*/0.0);
//   const double loss = tr.run_step();   // the loss before the step's update
//   const double w1 = tr.param("w1");
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"

namespace skiff::testing {

constexpr int kRegressionPoints = 8;
// The parameters, each of shape [1].
inline const char* const kRegressionParams[] = {"w1", "w2", "b"};

// The inputs x1, x2 and targets t of the regression, kRegressionPoints each.
struct RegressionData {
  std::vector<float> x1, x2, t;
};

// x1 evenly spaced in [-1, 1], x2[i] = x2_of(i), t = 2 x1 - 3 x2 + 0.5.
inline RegressionData regression_data(double (*x2_of)(int)) {
  constexpr int n = kRegressionPoints;
  RegressionData d{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
  for (int i = 0; i < n; ++i) {
    d.x1[i] = -1.0f + 2.0f * i / (n - 1);
    d.x2[i] = static_cast<float>(x2_of(i));
    d.t[i] = 2 * d.x1[i] - 3 * d.x2[i] + 0.5f;
  }
  return d;
}

enum class RegressionLoss {
  kSumOfSquares,  // the loss variable holds the squared errors; the loss is their sum
  kMeanMse,       // the loss variable is mean(mse_loss(pred, t))
};

// The regression's training program (with append_optimizer's additions), its startup
// program run once, and the data fed.
struct RegressionTrainer {
  Program main, startup;
  std::string loss;
  Executor exe;
  Scope scope;
  std::shared_ptr<PreparedBlock> step;

  // Every parameter starts at `init`.
  RegressionTrainer(const OptimizerConfig& config, const RegressionData& data, RegressionLoss kind,
                    double init) {
    const int64_t n = kRegressionPoints;
    BlockBuilder b(&main);
    b.data("x1", DType::kF32, {n});
    b.data("x2", DType::kF32, {n});
    b.data("t", DType::kF32, {n});
    for (const char* p : kRegressionParams)
      b.parameter(p, DType::kF32, {1}, &startup, Initializer::constant(init));
    auto mul = [&](const char* x, const char* w) {
      return b.apply("elementwise_mul", {{"X", {x}}, {"Y", {w}}});
    };
    std::string sum =
        b.apply("elementwise_add", {{"X", {mul("x1", "w1")}}, {"Y", {mul("x2", "w2")}}});
    std::string pred = b.apply("elementwise_add", {{"X", {sum}}, {"Y", {"b"}}});
    if (kind == RegressionLoss::kSumOfSquares) {
      std::string err = b.apply("elementwise_sub", {{"X", {pred}}, {"Y", {"t"}}});
      loss = b.apply("elementwise_mul", {{"X", {err}}, {"Y", {err}}});
    } else {
      std::string err = b.apply("mse_loss", {{"X", {pred}}, {"Label", {"t"}}});
      loss = b.apply("reduce_mean", {{"X", {err}}});
    }
    append_optimizer(main, startup, append_backward(main, loss), config);
    exe.run(startup, &scope);
    feed(main, &scope, "x1", Tensor::from_vector<float>({n}, data.x1));
    feed(main, &scope, "x2", Tensor::from_vector<float>({n}, data.x2));
    feed(main, &scope, "t", Tensor::from_vector<float>({n}, data.t));
    step = exe.prepare(main, {loss});
  }

  // Runs one training step; returns the loss it computed (before its update).
  double run_step() {
    exe.run(*step, &scope);
    double s = 0;
    for (float e : fetch(scope, loss).to_vector<float>()) s += e;
    return s;
  }
  double param(const char* name) const { return fetch(scope, name).item<double>(); }
  // The learning-rate variable the update ops read.
  std::string lr_var() const {
    for (const OpDesc& op : main.global_block().ops)
      if (!op.first_input("Param").empty()) return op.first_input("LearningRate");
    return "";
  }
};

}  // namespace skiff::testing
