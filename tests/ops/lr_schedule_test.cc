// Learning-rate schedule ops: every lr_* op at chosen steps against its closed form in
// double precision (and PaddlePaddle's schedulers' values), in f32 and f64, with a step
// offset and a fractional (float64) step; a program that increments its counter and
// recomputes the rate every run; errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "skiff/api/builder.h"
#include "skiff/runtime/executor.h"
#include "tests/testing/op_test.h"

namespace skiff {
namespace {

using testing::expect_error;
using testing::from_f64;
using testing::OpTest;

Tensor step_tensor(int64_t step) { return Tensor::from_vector<int64_t>({1}, {step}); }

Tensor lr_of(double lr, DType dtype) {
  return from_f64(Tensor::from_vector<double>({1}, {lr}), dtype);
}

TEST(LrStepDecayOp, DecaysEveryStepSizeSteps) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (int64_t step : {0, 2, 3, 5, 6, 10}) {
      OpTest t("lr_step_decay");
      t.input("Step", step_tensor(step))
          .attr("learning_rate", 0.5)
          .attr("step_size", int64_t{3})
          .attr("gamma", 0.1)
          .attr("dtype", std::string(dtype_name(dtype)));
      t.check_output("Out", lr_of(0.5 * std::pow(0.1, std::floor(step / 3.0)), dtype), 1e-12, 1e-6);
    }
  }
  OpTest offset("lr_step_decay");  // wrapped by a 4-step warmup: step 7 is its step 3
  offset.input("Step", step_tensor(7))
      .attr("learning_rate", 0.5)
      .attr("step_size", int64_t{3})
      .attr("step_offset", int64_t{4});
  offset.check_output("Out", lr_of(0.05, DType::kF32));
  OpTest before("lr_step_decay");  // before the warmup ends: clamped at step 0
  before.input("Step", step_tensor(2))
      .attr("learning_rate", 0.5)
      .attr("step_size", int64_t{3})
      .attr("step_offset", int64_t{4});
  before.check_output("Out", lr_of(0.5, DType::kF32));
}

TEST(LrCosineAnnealingOp, FollowsTheHalfCosine) {
  // paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=4, eta_min=0.01) gives
  // 0.1, 0.086820, 0.055, 0.023180, 0.01, 0.023180 for steps 0..5.
  const std::vector<double> paddle = {0.1,  0.08681980515339464, 0.055, 0.02318019484660537,
                                      0.01, 0.02318019484660537};
  for (int64_t step = 0; step < 6; ++step) {
    OpTest t("lr_cosine_annealing");
    t.input("Step", step_tensor(step))
        .attr("learning_rate", 0.1)
        .attr("T_max", int64_t{4})
        .attr("eta_min", 0.01)
        .attr("dtype", std::string("float64"));
    t.check_output("Out", lr_of(paddle[step], DType::kF64), 1e-12, 1e-9);
  }
}

TEST(LrLinearWarmupOp, RampsThenPassesTheWrappedRateThrough) {
  for (int64_t step : {0, 1, 3, 4, 9}) {
    OpTest t("lr_linear_warmup");
    t.input("Step", step_tensor(step))
        .input("LearningRate", lr_of(0.3, DType::kF64))
        .attr("warmup_steps", int64_t{4})
        .attr("start_lr", 0.1)
        .attr("end_lr", 0.5);
    const double want = step < 4 ? 0.1 + 0.4 * static_cast<double>(step) / 4 : 0.3;
    t.check_output("Out", lr_of(want, DType::kF64), 1e-15, 1e-12);
  }
}

const double kPi = std::acos(-1.0);

// Op `type` with `attrs` at each step (an int64 counter), in f32 and f64, gives
// want(step); with step_offset 2 at step + 2 too.
void check_schedule(const std::string& type, const std::vector<std::pair<std::string, Attr>>& attrs,
                    const std::vector<int64_t>& steps, const std::function<double(double)>& want) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (int64_t step : steps) {
      for (int64_t offset : {0, 2}) {
        OpTest t(type);
        t.input("Step", step_tensor(step + offset))
            .attr("step_offset", offset)
            .attr("dtype", std::string(dtype_name(dtype)));
        for (const auto& [name, value] : attrs) t.attr(name, value);
        const double tol = dtype == DType::kF32 ? 1e-6 : 1e-13;
        t.check_output("Out", lr_of(want(static_cast<double>(step)), dtype), tol, tol);
      }
    }
  }
}

const std::vector<int64_t> kSteps = {0, 1, 2, 3, 5, 8, 13, 21};

TEST(LrDecayOps, FollowTheirClosedForms) {
  check_schedule("lr_exponential_decay", {{"learning_rate", 0.5}, {"gamma", 0.9}}, kSteps,
                 [](double s) { return 0.5 * std::pow(0.9, s); });
  check_schedule("lr_natural_exp_decay", {{"learning_rate", 0.5}, {"gamma", 0.1}}, kSteps,
                 [](double s) { return 0.5 * std::exp(-0.1 * s); });
  check_schedule("lr_inverse_time_decay", {{"learning_rate", 0.5}, {"gamma", 0.2}}, kSteps,
                 [](double s) { return 0.5 / (1 + 0.2 * s); });
  check_schedule(
      "lr_polynomial_decay",
      {{"learning_rate", 0.5}, {"decay_steps", int64_t{7}}, {"end_lr", 0.01}, {"power", 2.0}},
      kSteps, [](double s) {
        const double held = std::min(s, 7.0);
        return 0.49 * (1 - held / 7) * (1 - held / 7) + 0.01;
      });
  check_schedule("lr_polynomial_decay",
                 {{"learning_rate", 0.5},
                  {"decay_steps", int64_t{4}},
                  {"end_lr", 0.01},
                  {"power", 1.0},
                  {"cycle", true}},
                 kSteps, [](double s) {
                   const double steps = 4 * std::max(1.0, std::ceil(s / 4));
                   return 0.49 * (1 - s / steps) + 0.01;
                 });
  check_schedule(
      "lr_piecewise_decay",
      {{"boundaries", std::vector<double>{3, 6}}, {"values", std::vector<double>{0.1, 0.05, 0.01}}},
      kSteps, [](double s) { return s < 3   ? 0.1
                                    : s < 6 ? 0.05
                                            : 0.01; });
  check_schedule(
      "lr_multistep_decay",
      {{"learning_rate", 0.5}, {"milestones", std::vector<double>{2, 5, 9}}, {"gamma", 0.5}},
      kSteps, [](double s) { return 0.5 * std::pow(0.5, (s >= 2) + (s >= 5) + (s >= 9)); });
  check_schedule("lr_noam_decay",
                 {{"learning_rate", 2.0}, {"d_model", 64.0}, {"warmup_steps", 5.0}}, kSteps,
                 [](double s) {
                   const double a = s == 0 ? 1.0 : 1 / std::sqrt(s);
                   return 2.0 / 8 * std::min(a, s / std::pow(5.0, 1.5));
                 });
}

TEST(LrCycleOps, FollowTheirClosedForms) {
  check_schedule("lr_linear_lr",
                 {{"learning_rate", 0.5},
                  {"total_steps", int64_t{6}},
                  {"start_factor", 0.25},
                  {"end_factor", 0.9}},
                 kSteps, [](double s) { return 0.5 * (0.25 + 0.65 * std::min(s, 6.0) / 6); });
  // Cycles of 3 steps up and 5 down between 0.1 and 1.0, the height halved each cycle.
  check_schedule("lr_cyclic",
                 {{"learning_rate", 0.1},
                  {"max_learning_rate", 1.0},
                  {"step_size_up", 3.0},
                  {"step_size_down", 5.0},
                  {"mode", std::string("triangular2")}},
                 kSteps, [](double s) {
                   const double cycle = std::floor(s / 8), at = s - 8 * cycle;
                   const double height = at <= 3 ? at / 3 : (8 - at) / 5;
                   return 0.1 + 0.9 * height / std::pow(2.0, cycle);
                 });
  // Cycles of 3, 6, 12, 24 steps (starting at 0, 3, 9, 21) from 0.5 down to 0.05.
  check_schedule(
      "lr_cosine_warm_restarts",
      {{"learning_rate", 0.5}, {"T_0", int64_t{3}}, {"T_mult", int64_t{2}}, {"eta_min", 0.05}},
      kSteps, [](double s) {
        double start = 0, length = 3;
        for (; s >= start + length; length *= 2) start += length;
        return 0.05 + 0.45 * (1 + std::cos(kPi * (s - start) / length)) / 2;
      });
  // paddle.optimizer.lr.OneCycleLR(1.0, 10, phase_pct=0.5, anneal_strategy='linear'):
  // up from 0.04 over steps 0..4, down to 1e-4 over 4..9.
  check_schedule("lr_one_cycle",
                 {{"max_learning_rate", 1.0},
                  {"total_steps", int64_t{10}},
                  {"phase_pct", 0.5},
                  {"anneal_strategy", std::string("linear")}},
                 {0, 1, 4, 6, 9, 10}, [](double s) {
                   return s <= 4 ? 0.04 + 0.96 * s / 4 : 1.0 + (1e-4 - 1.0) * (s - 4) / 5;
                 });
}

TEST(LrScheduleOps, TakeAFractionalStep) {
  OpTest t("lr_cosine_warm_restarts");  // Paddle's step(4.5): half way through cycle 2
  t.input("Step", Tensor::from_vector<double>({1}, {4.5}))
      .attr("learning_rate", 1.0)
      .attr("T_0", int64_t{3})
      .attr("T_mult", int64_t{2})
      .attr("dtype", std::string("float64"));
  t.check_output("Out", lr_of((1 + std::cos(kPi * 1.5 / 6)) / 2, DType::kF64), 1e-14, 1e-12);
}

TEST(LrScheduleOps, AProgramUpdatesItsOwnRate) {
  Program prog, startup;
  BlockBuilder b(&prog);
  b.parameter("step", DType::kI64, {1}, &startup, Initializer::constant(0));
  b.persistable("lr", DType::kF32, {1});
  b.persistable("decayed", DType::kF32, {1});
  b.op("lr_step_decay", {{"Step", {"step"}}}, {{"Out", {"decayed"}}},
       {{"learning_rate", 1.0},
        {"step_size", int64_t{2}},
        {"gamma", 0.5},
        {"step_offset", int64_t{2}}});
  b.op("lr_linear_warmup", {{"Step", {"step"}}, {"LearningRate", {"decayed"}}}, {{"Out", {"lr"}}},
       {{"warmup_steps", int64_t{2}}, {"start_lr", 0.0}, {"end_lr", 1.0}});
  b.op("increment", {{"X", {"step"}}}, {{"Out", {"step"}}}, {{"step", 1.0}});
  Executor exe;
  Scope scope;
  exe.run(startup, &scope);
  auto prepared = exe.prepare(prog);
  std::vector<float> rates;
  for (int s = 0; s < 7; ++s) {
    exe.run(*prepared, &scope);
    rates.push_back(fetch(scope, "lr").item<float>());
  }
  // Warmup 0, 0.5; then the decay from its own step 0: 1, 1, 0.5, 0.5, 0.25 (as
  // PaddlePaddle's LinearWarmup(StepDecay(1.0, 2, 0.5), 2, 0.0, 1.0) gives).
  EXPECT_EQ(rates, (std::vector<float>{0, 0.5f, 1, 1, 0.5f, 0.5f, 0.25f}));
  EXPECT_EQ(fetch(scope, "step").item<int64_t>(), 7);
}

TEST(LrScheduleOps, Errors) {
  OpTest zero_size("lr_step_decay");
  zero_size.input("Step", step_tensor(1)).attr("learning_rate", 0.1).attr("step_size", int64_t{0});
  expect_error(zero_size, {"step_size must be > 0"});

  OpTest zero_t("lr_cosine_annealing");
  zero_t.input("Step", step_tensor(1)).attr("learning_rate", 0.1).attr("T_max", int64_t{0});
  expect_error(zero_t, {"T_max must be > 0"});

  OpTest int_rate("lr_step_decay");
  int_rate.input("Step", step_tensor(1))
      .attr("learning_rate", 0.1)
      .attr("step_size", int64_t{2})
      .attr("dtype", std::string("int64"));
  expect_error(int_rate, {"float32 or float64"});

  OpTest long_step("lr_cosine_annealing");
  long_step.input("Step", Tensor::from_vector<int64_t>({2}, {1, 2}))
      .attr("learning_rate", 0.1)
      .attr("T_max", int64_t{3});
  expect_error(long_step, {"one-element"});

  OpTest no_warmup("lr_linear_warmup");
  no_warmup.input("Step", step_tensor(1))
      .input("LearningRate", lr_of(0.1, DType::kF32))
      .attr("warmup_steps", int64_t{0})
      .attr("end_lr", 0.1);
  expect_error(no_warmup, {"warmup_steps must be > 0"});

  OpTest few_values("lr_piecewise_decay");
  few_values.input("Step", step_tensor(1))
      .attr("boundaries", std::vector<double>{1, 2})
      .attr("values", std::vector<double>{0.1, 0.2});
  expect_error(few_values, {"2 boundaries need 3 values"});

  OpTest bad_mode("lr_cyclic");
  bad_mode.input("Step", step_tensor(1))
      .attr("learning_rate", 0.1)
      .attr("max_learning_rate", 1.0)
      .attr("step_size_up", 2.0)
      .attr("step_size_down", 2.0)
      .attr("mode", std::string("square"));
  expect_error(bad_mode, {"mode must be"});

  OpTest past_end("lr_one_cycle");
  past_end.input("Step", step_tensor(11))
      .attr("max_learning_rate", 1.0)
      .attr("total_steps", int64_t{10});
  expect_error(past_end, {"past total_steps"});

  OpTest no_decay_steps("lr_polynomial_decay");
  no_decay_steps.input("Step", step_tensor(1))
      .attr("learning_rate", 0.1)
      .attr("decay_steps", int64_t{0});
  expect_error(no_decay_steps, {"decay_steps must be > 0"});
}

}  // namespace
}  // namespace skiff
