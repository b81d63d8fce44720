// append_optimizer's additions on a tiny regression, pred = w1*x1 + w2*x2 + b with
// loss mean(mse_loss(pred, t)): adamw, rmsprop and adagrad train it; weight decay
// (L2 in the gradient, decoupled for adamw) and global-norm clipping change the first
// step as hand-computed; learning-rate schedules give the expected rate sequence;
// bad configurations are rejected.
#include <gtest/gtest.h>

#include <cmath>

#include "skiff/api/builder.h"
#include "skiff/api/optimizer.h"
#include "skiff/autodiff/backward.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/linear_regression.h"

namespace skiff {
namespace {

using testing::kRegressionParams;
using testing::RegressionData;
using testing::RegressionLoss;

constexpr int kN = testing::kRegressionPoints;
constexpr double kInit = 0.5;  // every parameter's initial value

// The data: x2 = cos(1.3 i).
const RegressionData& data() {
  static const RegressionData d = testing::regression_data([](int i) { return std::cos(1.3 * i); });
  return d;
}

// The loss: mean(mse_loss(pred, t)).
struct Trainer : testing::RegressionTrainer {
  explicit Trainer(const OptimizerConfig& config)
      : RegressionTrainer(config, data(), RegressionLoss::kMeanMse, kInit) {}
};

// d loss / d p at w1 = w2 = b = kInit: mean of 2 (pred - t) dpred/dp.
std::vector<double> initial_gradients() {
  const std::vector<float>& x1 = data().x1;
  const std::vector<float>& x2 = data().x2;
  const std::vector<float>& t = data().t;
  std::vector<double> g(3, 0.0);
  for (int i = 0; i < kN; ++i) {
    const double e = kInit * x1[i] + kInit * x2[i] + kInit - t[i];
    g[0] += 2 * e * x1[i] / kN;
    g[1] += 2 * e * x2[i] / kN;
    g[2] += 2 * e / kN;
  }
  return g;
}

void expect_first_step(const OptimizerConfig& config, const std::vector<double>& want) {
  Trainer tr(config);
  tr.run_step();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(tr.param(kRegressionParams[k]), want[k], 2e-6 * (1 + std::fabs(want[k])))
        << config.type << " parameter " << kRegressionParams[k];
  }
}

TEST(OptimizerConfig, NewOptimizersTrain) {
  auto expect_trains = [](const OptimizerConfig& config, int steps, double factor) {
    Trainer tr(config);
    const double first = tr.run_step();
    double last = first;
    for (int s = 1; s < steps; ++s) last = tr.run_step();
    EXPECT_LT(last, first * factor) << config.type << ": loss " << first << " -> " << last;
  };
  expect_trains({"adamw", 0.05}, 300, 1e-3);
  expect_trains({"rmsprop", 0.03}, 400, 1e-3);
  OptimizerConfig centered{"rmsprop", 0.03};
  centered.rmsprop.centered = true;
  centered.rmsprop.momentum = 0.5;
  expect_trains(centered, 400, 1e-3);
  expect_trains({"adagrad", 0.5}, 300, 1e-3);
  OptimizerConfig regularized{"adam", 0.05};
  regularized.weight_decay = 1e-4;
  regularized.clip_global_norm = 1.0;
  regularized.lr_schedule.type = "cosine_annealing";
  regularized.lr_schedule.t_max = 400;
  regularized.lr_schedule.warmup_steps = 10;
  expect_trains(regularized, 300, 1e-3);
}

TEST(OptimizerConfig, FirstStepsOfTheNewOptimizers) {
  const std::vector<double> g = initial_gradients();
  std::vector<double> want(3);
  // adamw's first step: p * (1 - lr * wd) - lr * g / (|g| + eps).
  OptimizerConfig adamw{"adamw", 0.1};
  adamw.weight_decay = 0.2;
  for (int k = 0; k < 3; ++k)
    want[k] = kInit * (1 - 0.1 * 0.2) - 0.1 * g[k] / (std::fabs(g[k]) + 1e-8);
  expect_first_step(adamw, want);
  // rmsprop from zero state: ms = (1 - rho) g^2, p -= lr * g / sqrt(ms + eps).
  OptimizerConfig rmsprop{"rmsprop", 0.01};
  for (int k = 0; k < 3; ++k) want[k] = kInit - 0.01 * g[k] / std::sqrt(0.05 * g[k] * g[k] + 1e-6);
  expect_first_step(rmsprop, want);
  // adagrad with an initial accumulator of 0.1: m = 0.1 + g^2.
  OptimizerConfig adagrad{"adagrad", 0.1};
  adagrad.adagrad.initial_accumulator_value = 0.1;
  for (int k = 0; k < 3; ++k) want[k] = kInit - 0.1 * g[k] / (std::sqrt(0.1 + g[k] * g[k]) + 1e-6);
  expect_first_step(adagrad, want);
}

TEST(OptimizerConfig, WeightDecayAddsTheL2TermToTheGradient) {
  const std::vector<double> g = initial_gradients();
  std::vector<double> want(3);
  OptimizerConfig sgd{"sgd", 0.1};
  sgd.weight_decay = 0.3;
  for (int k = 0; k < 3; ++k) want[k] = kInit - 0.1 * (g[k] + 0.3 * kInit);
  expect_first_step(sgd, want);
  // Adam's first step normalizes the regularized gradient: p -= lr * sign(g + wd p).
  OptimizerConfig adam{"adam", 0.1};
  adam.weight_decay = 0.3;
  for (int k = 0; k < 3; ++k) {
    const double gr = g[k] + 0.3 * kInit;
    want[k] = kInit - 0.1 * gr / (std::fabs(gr) + 1e-8);
  }
  expect_first_step(adam, want);
}

TEST(OptimizerConfig, GlobalNormClippingScalesTheGradients) {
  const std::vector<double> g = initial_gradients();
  const double norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  std::vector<double> want(3);
  for (double clip : {0.25 * norm, 4.0 * norm}) {
    OptimizerConfig sgd{"sgd", 1.0};
    sgd.clip_global_norm = clip;
    const double scale = clip < norm ? clip / norm : 1.0;
    for (int k = 0; k < 3; ++k) want[k] = kInit - g[k] * scale;
    expect_first_step(sgd, want);
  }
  // Clipping comes before the L2 term (PaddlePaddle's order).
  OptimizerConfig both{"sgd", 1.0};
  both.clip_global_norm = 0.25 * norm;
  both.weight_decay = 0.5;
  for (int k = 0; k < 3; ++k) want[k] = kInit - (g[k] * 0.25 + 0.5 * kInit);
  expect_first_step(both, want);
}

// The learning rates the first `steps` steps use.
std::vector<double> rate_sequence(const LrSchedule& schedule, double lr, int steps) {
  OptimizerConfig config{"sgd", lr};
  config.lr_schedule = schedule;
  Trainer tr(config);
  std::vector<double> rates;
  for (int s = 0; s < steps; ++s) {
    tr.run_step();
    rates.push_back(fetch(tr.scope, tr.lr_var()).item<double>());
  }
  return rates;
}

void expect_rates(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-7) << "step " << i;
}

TEST(OptimizerConfig, SchedulesGiveTheExpectedRates) {
  LrSchedule step_decay;
  step_decay.type = "step_decay";
  step_decay.step_size = 2;
  step_decay.gamma = 0.5;
  expect_rates(rate_sequence(step_decay, 0.4, 6), {0.4, 0.4, 0.2, 0.2, 0.1, 0.1});

  LrSchedule cosine;
  cosine.type = "cosine_annealing";
  cosine.t_max = 4;
  cosine.eta_min = 0.01;
  const double pi = std::acos(-1.0);
  auto cosine_at = [&](int s) { return 0.01 + 0.09 * (1 + std::cos(pi * s / 4)) / 2; };
  expect_rates(rate_sequence(cosine, 0.1, 6), {cosine_at(0), cosine_at(1), cosine_at(2),
                                               cosine_at(3), cosine_at(4), cosine_at(5)});

  LrSchedule warm_cosine = cosine;
  warm_cosine.warmup_steps = 3;
  warm_cosine.warmup_start_lr = 0.0;
  expect_rates(rate_sequence(warm_cosine, 0.1, 7),
               {0.0, 0.1 / 3, 0.2 / 3, cosine_at(0), cosine_at(1), cosine_at(2), cosine_at(3)});

  LrSchedule warm_constant;
  warm_constant.warmup_steps = 2;
  warm_constant.warmup_start_lr = 0.2;
  warm_constant.warmup_end_lr = 0.6;
  expect_rates(rate_sequence(warm_constant, 0.5, 4), {0.2, 0.4, 0.5, 0.5});
}

TEST(OptimizerConfig, DecaySchedulesGiveTheExpectedRates) {
  // As paddle.optimizer.lr.ExponentialDecay(0.4, 0.5), PiecewiseDecay([2, 3], [0.3, 0.2,
  // 0.1]) and MultiStepDecay(0.4, [1, 3], 0.5) give.
  LrSchedule exponential;
  exponential.type = "exponential";
  exponential.gamma = 0.5;
  expect_rates(rate_sequence(exponential, 0.4, 4), {0.4, 0.2, 0.1, 0.05});

  LrSchedule piecewise;
  piecewise.type = "piecewise";
  piecewise.boundaries = {2, 3};
  piecewise.values = {0.3, 0.2, 0.1};
  expect_rates(rate_sequence(piecewise, 0.4, 5), {0.3, 0.3, 0.2, 0.1, 0.1});

  LrSchedule multistep;
  multistep.type = "multistep";
  multistep.milestones = {1, 3};
  multistep.gamma = 0.5;
  expect_rates(rate_sequence(multistep, 0.4, 5), {0.4, 0.2, 0.2, 0.1, 0.1});

  LrSchedule warm_exponential = exponential;  // LinearWarmup(ExponentialDecay, 2, 0, 0.4)
  warm_exponential.warmup_steps = 2;
  expect_rates(rate_sequence(warm_exponential, 0.4, 5), {0.0, 0.2, 0.4, 0.2, 0.1});
}

TEST(OptimizerConfig, ScheduleStateIsDeclaredAndCounted) {
  OptimizerConfig config{"momentum", 0.1};
  config.lr_schedule.type = "step_decay";
  Trainer tr(config);
  std::string counter;
  for (const OpDesc& op : tr.main.global_block().ops)
    if (op.type == "lr_step_decay") counter = op.first_input("Step");
  ASSERT_FALSE(counter.empty());
  const VarDesc* v = tr.main.global_block().find_local_var(counter);
  ASSERT_TRUE(v && v->persistable);
  EXPECT_EQ(v->dtype, DType::kI64);
  EXPECT_EQ(tr.main.global_block().ops.back().type, "increment");
  EXPECT_EQ(fetch(tr.scope, counter).item<int64_t>(), 0);
  for (int s = 0; s < 3; ++s) tr.run_step();
  EXPECT_EQ(fetch(tr.scope, counter).item<int64_t>(), 3);
}

TEST(OptimizerConfig, RejectsBadConfigurations) {
  Program main, startup;
  BlockBuilder b(&main);
  b.persistable("w", DType::kF32, {3});
  b.persistable(grad_name("w"), DType::kF32, {3});
  const std::vector<std::pair<std::string, std::string>> pairs = {{"w", grad_name("w")}};
  auto rejected = [&](const OptimizerConfig& c, const char* part) {
    std::string message;
    try {
      append_optimizer(main, startup, pairs, c);
    } catch (const Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  };
  OptimizerConfig c{"sgd", 0.1};
  c.weight_decay = -1;
  rejected(c, "weight_decay");
  c = {"sgd", 0.1};
  c.clip_global_norm = -1;
  rejected(c, "clip_global_norm");
  c = {"rmsprop", 0.1};
  c.rmsprop.rho = 1.0;
  rejected(c, "rho");
  c = {"adagrad", 0.1};
  c.adagrad.epsilon = -1;
  rejected(c, "adagrad");
  c = {"adamw", 0.1};
  c.beta1 = 1.5;
  rejected(c, "beta1");
  c = {"sgd", 0.1};
  c.lr_schedule.type = "staircase";
  rejected(c, "staircase");
  c.lr_schedule.type = "piecewise";
  c.lr_schedule.boundaries = {2, 4};
  c.lr_schedule.values = {0.1, 0.01};
  rejected(c, "3 values for 2 boundaries");
  c.lr_schedule.type = "cosine_annealing";
  c.lr_schedule.t_max = 0;
  rejected(c, "t_max");
  c.lr_schedule.type = "step_decay";
  c.lr_schedule.step_size = 0;
  rejected(c, "step_size");
  EXPECT_TRUE(main.global_block().ops.empty()) << "a rejected call must not append ops";
  EXPECT_TRUE(startup.global_block().ops.empty());
}

}  // namespace
}  // namespace skiff
