// append_optimizer on a tiny linear regression, pred = w1*x1 + w2*x2 + b with the
// loss sum((pred - t)^2): the first step matches a hand-computed update for each
// optimizer, training drives the loss down, and the optimizer state is declared and
// initialized as documented.
#include "skiff/api/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "skiff/api/builder.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/linear_regression.h"

namespace skiff {
namespace {

using testing::kRegressionParams;
using testing::RegressionData;
using testing::RegressionLoss;

// The data: x2 = sin(1.7 i); every parameter starts at 0.
const RegressionData& data() {
  static const RegressionData d = testing::regression_data([](int i) { return std::sin(1.7 * i); });
  return d;
}

struct Trainer : testing::RegressionTrainer {
  explicit Trainer(const OptimizerConfig& config)
      : RegressionTrainer(config, data(), RegressionLoss::kSumOfSquares, /*init=*/0.0) {}
};

// Gradients of the loss at w1 = w2 = b = 0: d/dp sum((pred - t)^2) = -2 sum(t * dpred/dp).
std::vector<double> initial_gradients() {
  const std::vector<float>& x1 = data().x1;
  const std::vector<float>& x2 = data().x2;
  const std::vector<float>& t = data().t;
  std::vector<double> g(3, 0.0);
  for (int i = 0; i < testing::kRegressionPoints; ++i) {
    g[0] += -2.0 * t[i] * x1[i];
    g[1] += -2.0 * t[i] * x2[i];
    g[2] += -2.0 * t[i];
  }
  return g;
}

void expect_first_step(const OptimizerConfig& config, const std::vector<double>& want) {
  Trainer tr(config);
  tr.run_step();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(tr.param(kRegressionParams[k]), want[k], 1e-5 * (1 + std::fabs(want[k])))
        << config.type << " parameter " << kRegressionParams[k];
  }
}

TEST(AppendOptimizer, FirstStepMatchesHandComputedUpdate) {
  const std::vector<double> g = initial_gradients();
  std::vector<double> want(3);

  OptimizerConfig sgd{"sgd", 0.02};
  for (int k = 0; k < 3; ++k) want[k] = -0.02 * g[k];
  expect_first_step(sgd, want);

  // Nesterov from zero velocity: v = g, p -= lr * (g + mu * v).
  OptimizerConfig nesterov{"momentum", 0.02};
  nesterov.momentum = 0.5;
  nesterov.use_nesterov = true;
  for (int k = 0; k < 3; ++k) want[k] = -0.02 * (g[k] + 0.5 * g[k]);
  expect_first_step(nesterov, want);

  // Adam's bias-corrected first step: p -= lr * g / (|g| + eps).
  OptimizerConfig adam{"adam", 0.1};
  for (int k = 0; k < 3; ++k) want[k] = -0.1 * g[k] / (std::fabs(g[k]) + 1e-8);
  expect_first_step(adam, want);
}

void expect_converges(const OptimizerConfig& config, int steps, double factor) {
  Trainer tr(config);
  const double first = tr.run_step();
  double last = first;
  for (int s = 1; s < steps; ++s) last = tr.run_step();
  EXPECT_LT(last, first * factor) << config.type << ": loss " << first << " -> " << last;
  EXPECT_NEAR(tr.param("w1"), 2.0, 0.05) << config.type;
  EXPECT_NEAR(tr.param("w2"), -3.0, 0.05) << config.type;
  EXPECT_NEAR(tr.param("b"), 0.5, 0.05) << config.type;
}

TEST(AppendOptimizer, TrainingConverges) {
  expect_converges({"sgd", 0.02}, 300, 1e-4);
  OptimizerConfig momentum{"momentum", 0.01};
  expect_converges(momentum, 300, 1e-4);
  momentum.use_nesterov = true;
  expect_converges(momentum, 300, 1e-4);
  expect_converges({"adam", 0.05}, 400, 1e-3);
}

TEST(AppendOptimizer, DeclaresAndInitializesState) {
  Program main, startup;
  BlockBuilder b(&main);
  b.persistable("w", DType::kF64, {2, 3});
  b.persistable(grad_name("w"), DType::kF64, {2, 3});
  OptimizerConfig adam{"adam", 0.25};
  adam.beta1 = 0.8;
  append_optimizer(main, startup, {{"w", grad_name("w")}}, adam);

  ASSERT_EQ(main.global_block().ops.size(), 1u);
  const OpDesc& op = main.global_block().ops[0];
  EXPECT_EQ(op.type, "adam");
  EXPECT_EQ(op.first_output("ParamOut"), "w");
  EXPECT_EQ(op.first_output("Moment1Out"), op.first_input("Moment1"));
  EXPECT_EQ(op.first_output("Beta2PowOut"), op.first_input("Beta2Pow"));
  EXPECT_DOUBLE_EQ(op.attr<double>("beta1"), 0.8);
  for (const char* slot : {"Moment1", "Moment2", "Beta1Pow", "Beta2Pow", "LearningRate"}) {
    const std::string name = op.first_input(slot);
    const VarDesc* in_main = main.global_block().find_local_var(name);
    const VarDesc* in_startup = startup.global_block().find_local_var(name);
    ASSERT_TRUE(in_main && in_startup) << slot << " '" << name << "' is not declared in both";
    EXPECT_TRUE(in_main->persistable && in_startup->persistable) << slot;
    EXPECT_EQ(in_main->dtype, DType::kF64) << slot;
  }

  Scope scope;
  Executor().run(startup, &scope);
  EXPECT_DOUBLE_EQ(fetch(scope, op.first_input("Beta1Pow")).item<double>(), 0.8);
  EXPECT_DOUBLE_EQ(fetch(scope, op.first_input("Beta2Pow")).item<double>(), 0.999);
  EXPECT_DOUBLE_EQ(fetch(scope, op.first_input("LearningRate")).item<double>(), 0.25);
  EXPECT_EQ(fetch(scope, op.first_input("Moment2")).shape(), (Shape{2, 3}));
  EXPECT_EQ(fetch(scope, op.first_input("Moment2")).to_vector<double>(),
            std::vector<double>(6, 0.0));
}

TEST(AppendOptimizer, RejectsBadConfigurationsAndNames) {
  Program main, startup;
  BlockBuilder b(&main);
  b.persistable("w", DType::kF32, {3});
  b.persistable(grad_name("w"), DType::kF32, {3});
  const std::vector<std::pair<std::string, std::string>> pairs = {{"w", grad_name("w")}};
  EXPECT_THROW(append_optimizer(main, startup, pairs, {"adadelta", 0.1}), Error);
  OptimizerConfig bad_beta{"adam", 0.1};
  bad_beta.beta2 = 1.0;
  EXPECT_THROW(append_optimizer(main, startup, pairs, bad_beta), Error);
  EXPECT_THROW(append_optimizer(main, startup, {{"v", grad_name("v")}}, {"sgd", 0.1}), Error);
  EXPECT_THROW(append_optimizer(main, startup, {}, {"sgd", 0.1}), Error);
  EXPECT_TRUE(main.global_block().ops.empty()) << "a rejected call must not append ops";
}

}  // namespace
}  // namespace skiff
