// Learning-rate schedule ops: step decay, cosine annealing and linear warmup at
// chosen steps against the closed forms (and PaddlePaddle's schedulers' values), in
// f32 and f64; a program that increments its counter and recomputes the rate every
// run; errors.
#include <gtest/gtest.h>

#include <cmath>
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
}

}  // namespace
}  // namespace skiff
